import { badParameters, refuse, SIMULATOR_ERRORS } from './sim-auth.js';
import { DOCUMENT_TYPES, isoTime, NO_CONTENT, objectBody, ok, userIdsOf, type SimRoute, type SimulatedWorld } from './sim-state.js';

/** Seat states: 1 activated (holds a seat), 0 disabled, -1 never enabled. */
export const SEAT_STATUSES = [1, 0, -1];

/** 3.5: app details, the callback URL and the seats, all signed with `scope: license`. */
export function licenseRoutes(world: SimulatedWorld, appId: string): SimRoute[] {
  const checkApp = (given: string | undefined) => {
    if (given !== appId) refuse(SIMULATOR_ERRORS.unknownApp, `unknown appId "${given}"`);
  };
  const activated = () => [...world.seats.values()].filter((seat) => seat.status === 1).length;
  const setStatus = (userIds: string[], status: number) => {
    const newlyActive = userIds.filter((id) => world.seats.get(id)?.status !== 1).length;
    if (status === 1 && activated() + newlyActive > world.app.memberLimit) {
      refuse(SIMULATOR_ERRORS.memberLimit, `activating ${newlyActive} more users would exceed the ${world.app.memberLimit} licensed seats`);
    }
    for (const userId of userIds) world.seats.set(userId, { status, createdAt: world.seats.get(userId)?.createdAt ?? isoTime(world.now()) });
    return NO_CONTENT;
  };

  return [
    {
      method: 'GET',
      pattern: /^\/sdk\/v2\/api\/license\/apps\/([^/]+)$/,
      scope: 'license',
      handle(_request, [given]) {
        checkApp(given);
        const { appName, memberLimit, validFrom, validUntil, endpointUrl } = world.app;
        return ok({
          appName,
          availableFileTypes: [...DOCUMENT_TYPES],
          premiumFileTypes: [],
          activatedUserCount: activated(),
          userCount: world.seats.size,
          memberLimit,
          validFrom,
          validUntil,
          endpointUrl: endpointUrl ?? '',
        });
      },
    },
    {
      method: 'PUT',
      pattern: /^\/sdk\/v2\/api\/license\/apps\/([^/]+)\/endpoint-url$/,
      scope: 'license',
      handle(request, [given]) {
        checkApp(given);
        const { url } = objectBody(request, '{ url }');
        if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) badParameters('url must start with http:// or https://');
        world.app.endpointUrl = (url as string).replace(/\/+$/, '');
        return NO_CONTENT;
      },
    },
    {
      method: 'GET',
      pattern: /^\/sdk\/v2\/api\/license\/users$/,
      scope: 'license',
      handle(request) {
        const page = Number(request.query.get('page') ?? '1');
        const size = Number(request.query.get('size') ?? '20');
        if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1 || size > 1000) badParameters('page (from 1) and size (1 to 1000) must be whole numbers');
        const rows = [...world.seats.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return ok(rows.slice((page - 1) * size, page * size).map(([userId, seat]) => ({ userId, createdAt: seat.createdAt, status: seat.status })));
      },
    },
    { method: 'POST', pattern: /^\/sdk\/v2\/api\/license\/users\/activate$/, scope: 'license', handle: (request) => setStatus(userIdsOf(objectBody(request, '{ userIds }')), 1) },
    { method: 'POST', pattern: /^\/sdk\/v2\/api\/license\/users\/deactivate$/, scope: 'license', handle: (request) => setStatus(userIdsOf(objectBody(request, '{ userIds }')), 0) },
    {
      method: 'POST',
      pattern: /^\/sdk\/v2\/api\/license\/users\/set-status$/,
      scope: 'license',
      handle(request) {
        const body = objectBody(request, '{ userIds, status }');
        if (typeof body.status !== 'number' || !SEAT_STATUSES.includes(body.status)) badParameters('status must be 1 (activated), 0 (disabled) or -1 (not enabled)');
        return setStatus(userIdsOf(body), body.status as number);
      },
    },
  ];
}
