import { isRecord, type AppCredentials } from '../jwt.js';
import { badParameters, Refusal, SimulatorAuth, type SimAnswer, type SimRequest } from './sim-auth.js';
import { contentRoutes } from './sim-content.js';
import { documentRoutes } from './sim-documents.js';
import { licenseRoutes } from './sim-license.js';
import { isoTime, SimulatedWorld, type SimRoute, type SimulatedFile } from './sim-state.js';

export { SIMULATOR_ERRORS, LICENSE_WINDOW_SECONDS } from './sim-auth.js';
export type { SimAnswer, SimRequest } from './sim-auth.js';
export { DOCUMENT_TYPES, MAX_FILE_ID_LENGTH } from './sim-state.js';

export interface SimulatedPlatformOptions {
  now?: () => number;
  /** HEADER_BRAND of the credential headers (`X-{brand}-Signature`, `X-{brand}-Token`). */
  brand?: string;
  /** The application's callback address (`endpoint_url`); the license API can change it. */
  endpointUrl?: string;
  /** Licensed seats (default 100). */
  memberLimit?: number;
}

/**
 * The platform's API as the simulator plays it (platform-api.md section 3): every call the kit makes,
 * with the platform's credential rules (sim-auth.ts), its status codes (204 for writes, 200 with an
 * in-body `status` for import and export) and `{ code, message }` error bodies. State lives in memory.
 */
export class SimulatedPlatform {
  readonly world: SimulatedWorld;
  private readonly auth: SimulatorAuth;
  private readonly routes: SimRoute[];

  constructor(
    readonly credentials: AppCredentials,
    options: SimulatedPlatformOptions = {},
  ) {
    const now = options.now ?? Date.now;
    const start = now();
    this.world = new SimulatedWorld(
      {
        appName: 'collab-host simulator',
        endpointUrl: options.endpointUrl,
        memberLimit: options.memberLimit ?? 100,
        validFrom: isoTime(start),
        validUntil: isoTime(start + 365 * 86400_000),
      },
      now,
    );
    this.auth = new SimulatorAuth(credentials, now, options.brand);
    this.routes = [...documentRoutes(this.world), ...contentRoutes(this.world), ...licenseRoutes(this.world, credentials.appId)];
  }

  /** The documents the platform knows. */
  get files(): Map<string, SimulatedFile> {
    return this.world.files;
  }

  /** Whether a path is one of the platform API's (the server answers others itself). */
  knows(path: string): boolean {
    return this.routes.some((route) => route.pattern.test(path));
  }

  /** Answers one API request: the route, then its credentials, then the call itself. */
  handle(request: SimRequest): SimAnswer {
    const matching = this.routes.filter((route) => route.pattern.test(request.path));
    const route = matching.find((candidate) => candidate.method === request.method);
    if (!route) {
      return matching.length > 0
        ? { status: 405, body: { code: 405, message: `${request.method} is not allowed on ${request.path}` } }
        : { status: 404, body: { code: 404, message: `no route ${request.method} ${request.path}` } };
    }
    const params = (route.pattern.exec(request.path) ?? []).slice(1).map((part) => decodeURIComponent(part ?? ''));
    try {
      return route.handle(request, params, this.auth.check(request, route.scope));
    } catch (error) {
      if (error instanceof Refusal) return error.answer;
      throw error;
    }
  }

  /**
   * `PUT /simulator/files/{fileId}` (the simulator's own, no credentials): sets what the platform would
   * learn from people editing: `text`, `comments` (a count), `mentions` [{ userId, atGuid }], and
   * `history` / `revisions` entries, so the read calls have something to answer.
   */
  setContent(fileId: string, body: unknown): SimAnswer {
    try {
      const file = this.world.file(fileId);
      if (!isRecord(body)) badParameters('the body must be a JSON object');
      const changes = body as Record<string, unknown>;
      if (typeof changes.text === 'string') file.text = changes.text;
      if (typeof changes.comments === 'number') file.comments = changes.comments;
      if (Array.isArray(changes.mentions)) file.mentions = changes.mentions.filter(isRecord).map((m) => ({ userId: String(m.userId), atGuid: String(m.atGuid ?? '') }));
      if (Array.isArray(changes.history)) file.history.push(...(changes.history.filter(isRecord) as unknown as SimulatedFile['history']));
      if (Array.isArray(changes.revisions)) file.revisions.push(...(changes.revisions.filter(isRecord) as unknown as SimulatedFile['revisions']));
      return { status: 204 };
    } catch (error) {
      if (error instanceof Refusal) return error.answer;
      throw error;
    }
  }
}
