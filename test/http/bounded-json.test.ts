import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/composition/app.js';
import { MAX_JSON_BODY_BYTES, MAX_JSON_DEPTH } from '../../src/http/json-body.js';
import { TOO_DEEP } from '../../src/shared/redaction.js';
import { eventLog } from '../../src/store/events/event-log.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { SCIM_TOKEN, scimConfig } from '../scim/scim-client.js';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const json = { 'content-type': 'application/json' };

/** `{"a":{"a":…{"a":1}…}}` with `levels` objects. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** `[[…[1]…]]` with `levels` arrays. */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/** Issue 31, deliver 1: every body bounded at parse time; the event log lists whatever it holds. */
describeEachStore('bounded JSON bodies', (store) => {
  let app: FastifyInstance;

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  const expectTooDeep = (response: { statusCode: number; json(): unknown }) => {
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_json', message: `the body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects` } });
  };
  const eventCount = async () =>
    Number(
      (
        await store()
          .db.selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("a user's push nested 4,000 levels deep is refused before it is stored, and the event log still lists", async () => {
    const before = await eventCount();
    for (const payload of [`{"kind":"comment","action":"create","fileId":"plan","userId":"zhang","comment":${nested(4000)}}`, nestedArrays(4000)]) {
      expectTooDeep(await app.inject({ method: 'POST', url: '/events', headers: { ...json, ...asUser('zhang'), 'x-platform-sdk-event': 'Comment' }, payload }));
    }
    expect(await eventCount()).toBe(before);
    expect((await app.inject({ method: 'GET', url: '/api/events', headers: admin })).statusCode).toBe(200);
  });

  it('the bound is the same on every kind of route: callbacks, the management API, SCIM', async () => {
    const deep = nested(MAX_JSON_DEPTH + 1);
    expectTooDeep(await app.inject({ method: 'POST', url: '/search', headers: { ...json, ...asUser('zhang') }, payload: `{"keyword":"x","type":"team_member","x":${deep}}` }));
    expectTooDeep(await app.inject({ method: 'PUT', url: '/api/teams/t-deep', headers: { ...json, ...admin }, payload: `{"name":"x","extra":${deep}}` }));
    // Brackets inside strings are text, not nesting.
    const bracketsInText = await app.inject({ method: 'PUT', url: '/api/teams/t-brackets', headers: { ...json, ...admin }, payload: JSON.stringify({ name: '['.repeat(200) }) });
    expect(bracketsInText.statusCode).toBe(201);
    // At the bound the body is parsed (and then judged by the route's schema as usual).
    const atBound = await app.inject({
      method: 'POST',
      url: '/search',
      headers: { ...json, ...asUser('zhang') },
      payload: `{"keyword":"x","type":"team_member","x":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(atBound.json()).not.toMatchObject({ error: { code: 'invalid_json' } });
    const teams = await store().db.selectFrom('teams').select('id').execute();
    expect(teams.map((team) => team.id)).not.toContain('t-deep');
  });

  it('a SCIM body past the bound is a 400 in the SCIM error shape', async () => {
    const scimApp = await buildApp({ config: scimConfig(), store: store(), logger: false });
    try {
      const response = await scimApp.inject({
        method: 'POST',
        url: '/scim/v2/Users',
        headers: { authorization: `Bearer ${SCIM_TOKEN}`, 'content-type': 'application/scim+json' },
        payload: `{"userName":"deep@example.com","x":${nested(4000)}}`,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: '400', error: { code: 'invalidSyntax' }, detail: expect.stringMatching(/nests deeper than 64 levels/) });
    } finally {
      await scimApp.close();
    }
  });

  it('a body past the size bound is a 413 in the error shape', async () => {
    const response = await app.inject({
      method: 'PUT',
      url: '/api/teams/t-big',
      headers: { ...json, ...admin },
      payload: JSON.stringify({ name: 'x'.repeat(MAX_JSON_BODY_BYTES) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it('an event stored nested 4,000 levels deep (before the bound) never breaks GET /api/events', async () => {
    const [id] = await eventLog.append(store().db, [
      {
        deliveryKey: `deep-${Date.now()}`,
        kind: 'Comment',
        action: 'create',
        fileId: 'plan',
        userId: 'zhang',
        credential: 'token',
        senderId: 'zhang',
        outcome: 'refused',
        problem: 'kept for the test',
        subject: null,
        receivedMs: Date.now(),
        body: `{"kind":"comment","deep":${nested(4000)}}`,
      },
    ]);
    const response = await app.inject({ method: 'GET', url: '/api/events?outcome=refused&limit=100', headers: admin });
    expect(response.statusCode).toBe(200);
    const listed = (response.json() as { items: Array<{ id: number; body: Record<string, unknown> }> }).items.find((item) => item.id === id);
    expect(listed?.body.kind).toBe('comment');
    let level: unknown = listed?.body.deep;
    let depth = 1;
    while (typeof level === 'object' && level !== null) {
      level = (level as { a: unknown }).a;
      depth += 1;
    }
    expect(level).toBe(TOO_DEEP);
    expect(depth).toBeLessThanOrEqual(MAX_JSON_DEPTH + 1);
  });
});
