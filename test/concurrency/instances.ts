import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { prng } from '../../bench/generate.js';
import type { Config } from '../../src/config/config.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { createTestDatabase, createTestSchema, openTestStore, postgresUrl } from '../helpers/stores.js';
import { scimConfig, SCIM_TOKEN } from '../scim/scim-client.js';

export const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
/** The team SCIM provisions in these tests (it creates it); the fixture's teams stay open to the management API. */
export const SCIM_TEAM = 'scimco';

/**
 * Two collab-host instances on one directory: on PostgreSQL two stores (two connection pools, as two
 * processes have) over one schema; on SQLite two apps over the one database (SQLite has one writing
 * process, docs/scaling.md). Both serve SCIM for SCIM_TEAM and the management API; `unowned` is a third
 * app whose configuration gives no team to SCIM (its management API may write SCIM's people).
 */
export interface Instances {
  a: FastifyInstance;
  b: FastifyInstance;
  unowned: FastifyInstance;
  store: OpenDatabase;
  close(): Promise<void>;
}

export async function openInstances(dialect: DialectName): Promise<Instances> {
  const withKey = (config: Config) => ({ ...config, adminApiKey: ADMIN_API_KEY });
  let first: OpenDatabase;
  let second: OpenDatabase;
  let drop = async () => {};
  if (dialect === 'sqlite') {
    first = await openTestStore('sqlite');
    second = first;
  } else if (dialect === 'mysql') {
    const database = await createTestDatabase();
    drop = database.drop;
    first = await openDatabase(database.url, { poolSize: 4 });
    second = await openDatabase(database.url, { poolSize: 4 });
  } else {
    const schema = await createTestSchema();
    drop = schema.drop;
    first = await openDatabase(postgresUrl!, { schema: schema.schema, poolSize: 4 });
    second = await openDatabase(postgresUrl!, { schema: schema.schema, poolSize: 4 });
  }
  await seedDirectory(first.db);
  const a = await buildTestApp(first, withKey(scimConfig(SCIM_TEAM)));
  const b = await buildTestApp(second, withKey(scimConfig(SCIM_TEAM)));
  const unowned = await buildTestApp(second, { adminApiKey: ADMIN_API_KEY });
  return {
    a,
    b,
    unowned,
    store: first,
    async close() {
      for (const app of [a, b, unowned]) await app.close();
      await first.close();
      if (second !== first) await second.close();
      await drop();
    },
  };
}

/** A management API request with the admin key. */
export function api(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
  return app.inject({ ...options, headers: { authorization: `Bearer ${ADMIN_API_KEY}`, ...(options.headers ?? {}) } });
}

/** A SCIM request as an identity provider sends it (extra headers such as If-Match allowed). */
export function scimRequest(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: { authorization: `Bearer ${SCIM_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }), ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** A small seeded generator (mulberry32): the same seed gives the same interleaving choices. */
export const seeded = prng;

/** `items` in an order drawn from `random`. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The seed of this run: CONCURRENCY_SEED, else a fixed one (printed on failure by the tests' messages). */
export const SEED = Number(process.env.CONCURRENCY_SEED ?? 20_261_126);
