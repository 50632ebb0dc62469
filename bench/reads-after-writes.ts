/**
 * What a directory write costs the reads that follow it, end to end through `app.inject` (one process, no
 * network) on a copy of the bench store: an administrator's `PUT /api/users/{id}` (a new name, as a SCIM or
 * LDAP update brings), then the reads that list or count people: the empty @-search of team members and
 * a first-level department's info (its `allMemberCount`). Each read is timed right after a write and
 * again at once (nothing written between); the model follows the write before the first read (the
 * writing instance).
 *
 *   npx tsx bench/reads-after-writes.ts --db COPY/bench.db [--writes 30]   (the copy is written to)
 */
import { parseArgs } from 'node:util';
import type { InjectOptions } from 'fastify';
import { mintUserToken } from '../src/auth/user-token.js';
import { buildApp } from '../src/composition/app.js';
import { testConfig } from '../src/config/config.js';
import { openDatabase } from '../src/store/connection/database.js';

const { values } = parseArgs({ options: { db: { type: 'string' }, writes: { type: 'string', default: '30' } } });
if (!values.db) throw new Error('--db PATH: a copy of the bench store (npm run bench -- --keep DIR makes one)');
const WRITES = Number(values.writes);
const KEY = 'bench-admin-key-0123456789';
const TOKEN_SECRET = 'bench-token-secret-0123456789';

const store = await openDatabase(`sqlite:${values.db}`);
const app = await buildApp({ config: testConfig({ tokenSecret: TOKEN_SECRET, adminApiKey: KEY, publicUrl: 'http://bench.test' }), store, logger: false });
await app.ready();
const admin = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const users = await store.db
  .selectFrom('users')
  .select(['id', 'name', 'team_id'])
  .where('team_id', 'is not', null)
  .orderBy('id')
  .limit(WRITES + 1)
  .execute();
const firstLevel = await store.db.selectFrom('departments').select('id').where('parent_id', 'is', null).orderBy('id').execute();
const viewer = users[WRITES]!;
const headers = { 'x-platform-token': mintUserToken(viewer.id, TOKEN_SECRET, 3600), 'content-type': 'application/json' };

const timed = async (request: InjectOptions): Promise<number> => {
  const start = process.hrtime.bigint();
  const answer = await app.inject(request);
  if (answer.statusCode !== 200) throw new Error(`${JSON.stringify(request)} answered ${answer.statusCode} ${answer.body}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const search = () => timed({ method: 'POST', url: '/search', headers, payload: { type: 'team_member', keyword: '' } });
const department = (id: string) => timed({ method: 'GET', url: `/departments/${id}`, headers });

// Warm: the model loaded, every index and list built, the departments counted once.
await search();
for (const { id } of firstLevel) await department(id);

const rows: Record<string, number[]> = { 'search after a write': [], 'search again': [], 'department after a write': [], 'department again': [] };
const rename = async (user: (typeof users)[number], name: string) => {
  const { departmentIds } = (await app.inject({ method: 'GET', url: `/api/users/${user.id}`, headers: admin })).json<{ departmentIds: string[] }>();
  const write = await app.inject({ method: 'PUT', url: `/api/users/${user.id}`, headers: admin, payload: { name, teamId: user.team_id, departmentIds } });
  if (write.statusCode !== 200) throw new Error(`PUT /api/users/${user.id} answered ${write.statusCode} ${write.body}`);
};
for (let index = 0; index < WRITES; index += 1) {
  const user = users[index]!;
  const departmentId = firstLevel[index % firstLevel.length]!.id;
  await rename(user, `${user.name} ${index}`);
  rows['search after a write']!.push(await search());
  rows['search again']!.push(await search());
  await rename(user, user.name);
  rows['department after a write']!.push(await department(departmentId));
  rows['department again']!.push(await department(departmentId));
}
await app.close();
await store.close();

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
for (const [name, list] of Object.entries(rows)) console.log(`${name.padEnd(28)} median ${median(list).toFixed(2)} ms, max ${Math.max(...list).toFixed(2)} ms (${list.length})`);
