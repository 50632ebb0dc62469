/**
 * Directory writes per second with 16 concurrent writers, on SQLite and (with --pg URL) PostgreSQL:
 * management API writes through app.inject into one process (no network), half grants on a few shared
 * files (the read-modify-write of issue 29), half user replacements. Every answer must be 2xx.
 *
 *   npx tsx bench/directory-writes.ts [--seconds 5] [--writers 16] [--pg postgres://postgres@127.0.0.1:5432/test]
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/composition/app.js';
import { testConfig } from '../src/config/config.js';
import { openDatabase, type OpenDatabase } from '../src/store/connection/database.js';
import { prng } from './generate.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, writers: { type: 'string', default: '16' }, pg: { type: 'string' } } });
const SECONDS = Number(values.seconds);
const WRITERS = Number(values.writers);
const KEY = 'bench-admin-key-0123456789';
const USERS = 200;
const FILES = 8;

async function measure(label: string, store: OpenDatabase): Promise<void> {
  const config = testConfig({
    appId: 'bench',
    appSecret: 'bench-app-secret-0123456789',
    tokenSecret: 'bench-token-secret-0123456789',
    adminApiKey: KEY,
    publicUrl: 'http://bench.test',
  });
  const app = await buildApp({ config, store, logger: false });
  await app.ready();
  const api = (method: 'PUT', url: string, payload: unknown) => app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${KEY}` } });
  await api('PUT', '/api/teams/t1', { name: 'Bench' });
  for (let index = 0; index < USERS; index += 1) await api('PUT', `/api/users/u${index}`, { name: `User ${index}`, teamId: 't1' });
  for (let index = 0; index < FILES; index += 1) {
    await api('PUT', `/api/files/f${index}`, {
      name: `File ${index}`,
      type: 'document',
      creatorId: 'u0',
      teamId: 't1',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
    });
  }
  const random = prng(29);
  const pick = (n: number) => Math.floor(random() * n);
  let writes = 0;
  let refused = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (Date.now() < until) {
        const user = pick(USERS);
        const answer =
          random() < 0.5
            ? await api('PUT', `/api/files/f${pick(FILES)}/grants/user:u${user}`, { role: random() < 0.5 ? 'viewer' : 'editor' })
            : await api('PUT', `/api/users/u${user}`, { name: `User ${user} ${pick(1000)}`, teamId: 't1' });
        if (answer.statusCode >= 300) refused += 1;
        else writes += 1;
      }
    }),
  );
  await app.close();
  console.log(`${label}: ${(writes / SECONDS).toFixed(0)} directory writes/s with ${WRITERS} writers over ${SECONDS} s${refused > 0 ? `, ${refused} refused (should be 0)` : ''}`);
}

const dir = await mkdtemp(join(tmpdir(), 'directory-writes-'));
try {
  const sqlite = await openDatabase(`sqlite:${join(dir, 'bench.db')}`);
  await measure('SQLite', sqlite);
  await sqlite.close();
  if (values.pg) {
    const schema = `bench_writes_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: values.pg });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    try {
      const store = await openDatabase(values.pg, { schema });
      await measure('PostgreSQL', store);
      await store.close();
    } finally {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
