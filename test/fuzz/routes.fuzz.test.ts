import type { FastifyInstance, InjectOptions } from 'fastify';
import fc, { type Arbitrary } from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/composition/app.js';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import { readSyncConfig } from '../../src/config/sync.js';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { HOSTILE_TEXTS, hostileString, queryTextFor, valueFor, type JsonSchema } from './schema-arbitrary.js';

/**
 * Issues 10 and 31: requests generated from every operation of the OpenAPI document (`/docs/json`, SCIM
 * on), with boundary and type-confused values (deep JSON, lone surrogates, NUL, huge strings, wrong types,
 * arrays for scalars, `../` and encoded slashes in ids, `__proto__` keys) and every kind of credential,
 * against the real app on both stores. Two parts: a sweep that sends each operation every fixed hostile
 * input (so no operation is left out), then a property over random requests. Properties: never a 500 (a
 * 5xx only when the platform's API is not configured or not answering); no runtime error text in any
 * answer; every refusal in the error shape (SCIM's under /scim/v2); a refused request changes nothing;
 * healthy afterwards, no prototype polluted. Bounded in time (TIME_BUDGET_MS for both parts, per store) with a
 * fixed seed, so a failure reproduces; FUZZ_SEED, FUZZ_RUNS and FUZZ_TIME_MS override.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
/** Time for the sweep and the property together, per store: the sweep takes at most half (but always reaches every operation once), the property the rest. */
const TIME_BUDGET_MS = Number(process.env.FUZZ_TIME_MS ?? 36_000);
/** Fixed inputs per operation in the sweep (rotating through HOSTILE_TEXTS and FIXED_BODIES). */
const SWEEP_PER_OPERATION = 8;
const ADMIN_KEY = 'fuzz-admin-key-0123456789';
const SCIM_TOKEN = 'fuzz-scim-token-0123456789';

const IDS: Record<string, string[]> = {
  fileId: ['plan', 'sheet', 'secret', 'teamdoc', 'contract', 'locked'],
  userId: ['zhang', 'lilei', 'hanmeimei', 'wang', 'alice', 'bob', 'carol', 'olga', 'outsider'],
  departmentId: ['rd', 'fe', 'web', 'be', 'sales', 'ops', 'TEAM_acme', 'TEAM_other'],
  teamId: ['acme', 'other'],
  teamGuid: ['acme', 'other'],
  // Filled in beforeAll with a real share link (docs/sharing.md).
  linkId: [],
  code: [],
};
/** A guest's token on a share link of `plan`, made in beforeAll: one of the credentials. */
let guestToken = 'not-yet';
/** The 5xx answers that are neither bad input nor a fault of collab-host: the platform's side of a call. */
const UPSTREAM_REFUSALS: Array<[number, string]> = [
  [503, 'platform_not_configured'],
  [502, 'platform_unreachable'],
  [502, 'platform_refused'],
  [504, 'platform_timeout'],
];
const EVENT_KINDS = ['Comment', 'Discussion', 'MentionAt', 'DateMention', 'FileContent', 'Collaborator', 'Revision', 'System', 'Unknown'];
/** What a runtime failure or a database says, which must never reach a caller. */
const RUNTIME_TEXT =
  /is not a function|Cannot read propert|Cannot convert|undefined is not|Maximum call stack|RangeError|TypeError|ReferenceError|SyntaxError: |SQLITE_|syntax error at|violates|duplicate key|invalid byte sequence|node_modules|at [\w.]+ \(/;

/** `{"a":{"a":…}}` nested `levels` deep. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** Bodies no schema produces: not JSON, too deep, prototype keys, NUL and lone surrogates as escapes, 1e400. */
const FIXED_BODIES = [
  '',
  '{',
  'null',
  '[]',
  '"x"',
  '{"a":1e400}',
  nested(4000),
  `{"name":${nested(70)}}`,
  '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"ids":["a\\u0000b"],"userName":"z\\ud800@example.com","displayName":"a\\u0000b","name":"\\udc00"}',
  '{"kind":"comment","action":"create","fileId":"../plan","userId":["zhang"]}',
  JSON.stringify({ name: 'n'.repeat(900_000) }),
];

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ in: string; name: string; schema?: JsonSchema }>;
  body?: JsonSchema;
  contentType: string;
}

describeEachStore('fuzz: every operation of /docs/json', (store, dialect) => {
  let app: FastifyInstance;
  let operations: Operation[];
  let requests = 0;
  let sweepMs = 0;
  const config = makeTestConfig({ adminApiKey: ADMIN_KEY, sync: readSyncConfig((name) => ({ SCIM_TOKEN, SCIM_TEAM_ID: 'acme' })[name]) });

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildApp({ config, store: store(), logger: false });
    await app.ready();
    operations = operationsOf((await app.inject({ method: 'GET', url: '/docs/json' })).json());
    const link = (await app.inject({ method: 'POST', url: '/api/files/plan/share-links', headers: { authorization: `Bearer ${ADMIN_KEY}` }, payload: { role: 'comment' } })).json();
    IDS.linkId = [link.id];
    IDS.code = [link.code];
    guestToken = (await app.inject({ method: 'POST', url: `/share-links/${link.code}/token`, payload: { name: 'Fuzz guest' } })).json().token;
  }, 180_000);
  afterAll(async () => {
    await app.close();
  }, 180_000);

  /** What a refused request must leave as it was: the directory, channels and preferences. */
  const written = async () =>
    JSON.stringify([
      await exportSnapshot(store().db),
      await store().db.selectFrom('notification_channels').selectAll().orderBy('id').execute(),
      await store().db.selectFrom('notification_preferences').selectAll().orderBy('user_id').execute(),
      await store().db.selectFrom('share_links').selectAll().orderBy('id').execute(),
    ]);

  /** Sends one request and checks every property but "nothing written" (the caller's, which costs more). */
  const send = async (options: InjectOptions) => {
    requests += 1;
    const response = await app.inject(options);
    const url = String(options.url);
    const where = `${String(options.method)} ${url.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
    if (response.statusCode >= 500) expect(UPSTREAM_REFUSALS, where).toContainEqual([response.statusCode, response.json().error?.code]);
    expect(response.body, where).not.toMatch(RUNTIME_TEXT);
    if (response.statusCode >= 400) {
      const body = response.json() as { error?: { code?: unknown; message?: unknown }; schemas?: unknown; detail?: unknown };
      expect(typeof body.error?.code, where).toBe('string');
      expect(typeof body.error?.message, where).toBe('string');
      if (url.startsWith('/scim/v2/')) expect(body.schemas, where).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    }
    return { response, where };
  };

  it('finds every kind of operation in the OpenAPI document', () => {
    const paths = new Set(operations.map((operation) => operation.path));
    for (const path of ['/files/{fileId}', '/search', '/events', '/api/teams/{teamId}', '/api/events', '/api/notification-channels/{channelId}']) expect(paths).toContain(path);
    for (const path of ['/scim/v2/Users', '/scim/v2/Users/{id}', '/scim/v2/Groups/{id}']) expect(paths).toContain(path);
    for (const path of ['/api/files/{fileId}/share-links', '/api/share-links/{linkId}', '/share-links/{code}/token']) expect(paths).toContain(path);
  });

  it('sweep: every operation with fixed hostile ids, query values (repeated: arrays) and bodies', { timeout: 120_000 }, async () => {
    const started = Date.now();
    let state = await written();
    const reached = new Set<Operation>();
    // Round by round over all operations, so that the budget ends rounds, never operations.
    for (let round = 0; round < SWEEP_PER_OPERATION; round += 1) {
      for (const [position, operation] of operations.entries()) {
        if (round > 0 && Date.now() - started > TIME_BUDGET_MS / 2) break;
        const index = position * SWEEP_PER_OPERATION + round;
        const text = HOSTILE_TEXTS[index % HOSTILE_TEXTS.length]!;
        const url = fillPath(operation.path, (name) => (round === 0 ? (IDS[name]?.[0] ?? text) : text));
        const query = operation.parameters
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => `${encodeURIComponent(parameter.name)}=${encodePath(text)}&${encodeURIComponent(parameter.name)}=1`)
          .join('&');
        const writes = operation.method !== 'GET' && operation.method !== 'HEAD';
        const { response, where } = await send({
          method: operation.method as InjectOptions['method'],
          url: query ? `${url}?${query}` : url,
          headers: { ...credentials(config, index, operation.path), 'content-type': operation.contentType, 'x-platform-sdk-event': EVENT_KINDS[index % EVENT_KINDS.length]! },
          ...(writes ? { payload: FIXED_BODIES[index % FIXED_BODIES.length]! } : {}),
        });
        reached.add(operation);
        if (!writes) continue;
        const after = await written();
        if (response.statusCode >= 400) expect(after, `${where}: a refused request changed something`).toBe(state);
        state = after;
      }
    }
    expect(reached.size).toBe(operations.length);
    sweepMs = Date.now() - started;
  });

  it('property: random requests from the schemas, refusals change nothing', { timeout: 120_000 }, async () => {
    const request = fc.constantFrom(...operations).chain((operation) => requestFor(operation, config));
    await fc.assert(
      fc.asyncProperty(request, async (options) => {
        const writes = options.method !== 'GET' && options.method !== 'HEAD';
        const before = writes ? await written() : '';
        const { response, where } = await send(options);
        if (writes && response.statusCode >= 400) expect(await written(), `${where}: a refused request changed something`).toBe(before);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true, interruptAfterTimeLimit: Math.max(3000, TIME_BUDGET_MS - sweepMs), markInterruptAsFailure: false },
    );
  });

  it('afterwards: healthy, the event log lists, and no prototype is polluted', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const events = await app.inject({
      method: 'GET',
      url: '/api/events?outcome=pending,processed,unprocessed,refused&limit=100',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(events.statusCode).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    // The count is the closing figure: how many requests one run sends per store.
    console.info(`fuzz [${dialect}]: ${requests} requests over ${operations.length} operations`);
    expect(requests).toBeGreaterThan(operations.length);
  });
});

/** The operations of the OpenAPI document (hidden routes, such as /healthz and /docs, are not in it). */
function operationsOf(document: {
  paths: Record<string, Record<string, { parameters?: Operation['parameters']; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
}): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const content = operation.requestBody?.content ?? {};
      const contentType = path.startsWith('/scim/') ? 'application/scim+json' : 'application/json';
      return {
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: (content['application/json'] ?? content['application/scim+json'])?.schema,
        contentType,
      };
    }),
  );
}

function fillPath(path: string, value: (name: string) => string): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => encodePath(value(name)));
}

function requestFor(operation: Operation, config: ReturnType<typeof makeTestConfig>): Arbitrary<InjectOptions> {
  const pathParams = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParams = operation.parameters.filter((parameter) => parameter.in === 'query');
  const pathValues = fc.record(Object.fromEntries(pathParams.map((parameter) => [parameter.name, idFor(parameter.name)])));
  const query = fc.record(Object.fromEntries(queryParams.map((parameter) => [parameter.name, queryTextFor(parameter.schema)])), { requiredKeys: [] });
  const body = operation.body || operation.method === 'POST' || operation.method === 'PUT' || operation.method === 'PATCH' ? bodyText(operation.body) : fc.constant(undefined);
  return fc
    .record({ pathValues, query, body, credential: fc.nat(20), kind: fc.constantFrom(...EVENT_KINDS), repeat: fc.boolean() })
    .map(({ pathValues, query, body, credential, kind, repeat }) => {
      const url = fillPath(operation.path, (name) => pathValues[name] as string);
      const search = Object.entries(query as Record<string, string>)
        // A repeated parameter arrives as an array where the schema has a scalar.
        .map(([name, value]) => {
          const pair = `${encodeURIComponent(name)}=${value.startsWith('%') ? value : encodePath(value)}`;
          return repeat ? `${pair}&${pair}` : pair;
        })
        .join('&');
      const headers: Record<string, string> = credentials(config, credential, operation.path, pathValues as Record<string, string>);
      if (operation.path === '/events') headers['x-platform-sdk-event'] = kind;
      if (body !== undefined) headers['content-type'] = operation.contentType;
      return { method: operation.method as InjectOptions['method'], url: search ? `${url}?${search}` : url, headers, ...(body === undefined ? {} : { payload: body }) };
    });
}

function idFor(name: string): Arbitrary<string> {
  const known = IDS[name];
  return known ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: hostileString }) : hostileString;
}

/** A body as text: the schema's shape (often), any JSON, or one of the fixed hostile bodies. */
function bodyText(schema: JsonSchema | undefined): Arbitrary<string> {
  return fc.oneof({ weight: 6, arbitrary: valueFor(schema).map((value) => JSON.stringify(value) ?? 'null') }, { weight: 1, arbitrary: fc.constantFrom(...FIXED_BODIES) });
}

/**
 * The credential of request `index`: a user token (of this team, another team, no team), the admin key,
 * the SCIM token, a signature bound to the path's file, none, junk. On /scim the SCIM token most often,
 * on /api the admin key most often, so that the fuzz gets past authentication.
 */
function credentials(config: ReturnType<typeof makeTestConfig>, index: number, path: string, pathValues: Record<string, string> = {}): Record<string, string> {
  const token = (userId: string) => ({ 'x-platform-token': mintUserToken(userId, config.tokenSecret, 3600) });
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  const scim = { authorization: `Bearer ${SCIM_TOKEN}` };
  const signature = {
    'x-platform-credential-type': '3',
    'x-platform-signature': mintSignature(
      { appId: config.appId, appSecret: config.appSecret },
      { ttlSeconds: 120, ...(pathValues.fileId === undefined ? {} : { fileId: pathValues.fileId }) },
    ),
  };
  const all = [
    token('zhang'),
    token('lilei'),
    token('olga'),
    token('outsider'),
    token('ghost'),
    { 'x-platform-token': guestToken },
    admin,
    scim,
    { authorization: 'Bearer wrong-key-0123456789' },
    signature,
    {},
    { 'x-platform-token': 'junk' },
  ];
  if (path.startsWith('/scim/') && index % 4 !== 0) return scim;
  if (path.startsWith('/api/') && index % 4 !== 0) return admin;
  return all[index % all.length]!;
}

/** Percent-encodes a path segment; a lone surrogate becomes the bytes of one (invalid UTF-8), hostile on purpose. */
function encodePath(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}
