/**
 * Server CPU per POST /search (each kind, then all five), answered from the read model: a generated
 * company (bench/generate.ts) imported into an SQLite file, the bench's keywords and varied ones (pieces
 * of real names), CPU time of this process per search (process.cpuUsage). Relative figures: the
 * machine's load moves them; compare before and after a change in the same minutes.
 *
 *   npx tsx bench/search-cpu.ts [--users N] [--searches N]   (default 10,000 users, 2,000 searches each)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { composeDirectoryChanges } from '../src/composition/directory-writes.js';
import { importSnapshot } from '../src/snapshot/import.js';
import { openDatabase } from '../src/store/connection/database.js';
import { asUser, buildTestApp, makeTestConfig } from '../test/helpers/app.js';
import { generateCompany } from './generate.js';
import { KEYWORDS } from './scenarios.js';

const { values } = parseArgs({ options: { users: { type: 'string' }, searches: { type: 'string' } } });
const users = Number(values.users ?? 10_000);
const searches = Number(values.searches ?? 2_000);
const scale = { users, departments: Math.max(10, Math.round(users / 100)), files: users * 2, grantsPerFile: 5 };
const dir = mkdtempSync(join(tmpdir(), 'search-cpu-'));
const store = await openDatabase(`sqlite:${join(dir, 'bench.db')}`);
try {
  const { snapshot } = generateCompany(scale);
  const imported = await importSnapshot(composeDirectoryChanges(makeTestConfig(), store), snapshot, { replace: true });
  if (!imported.ok) throw new Error('import refused');
  const userIds = snapshot.users.map((user) => user.id);
  const fileIds = snapshot.files.map((file) => file.id);
  const names = snapshot.users.slice(0, 5_000).map((user) => user.name);
  const random = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
  const piece = (name: string) => [...name].slice(0, 1 + Math.floor(Math.random() * 3)).join('');
  const headers = new Map(userIds.slice(0, 2_000).map((id) => [id, asUser(id)]));
  const pool = [...headers.keys()];

  const measure = async (label: string, app: FastifyInstance, varied: boolean, type = 'file_name,recent_contact,collaborator,team_member,department') => {
    const run = async (count: number) => {
      for (let index = 0; index < count; index += 1) {
        const keyword = varied && Math.random() < 0.5 ? piece(random(names)) : random(KEYWORDS);
        const response = await app.inject({
          method: 'POST',
          url: '/search',
          headers: { ...headers.get(random(pool))!, 'content-type': 'application/json' },
          payload: { type, keyword, fileId: random(fileIds), page: 0, pageSize: 6 },
        });
        if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
      }
    };
    await run(Math.min(200, searches / 10));
    const before = process.cpuUsage();
    await run(searches);
    const used = process.cpuUsage(before);
    const ms = (used.user + used.system) / 1000 / searches;
    console.log(`${label.padEnd(40)} ${ms.toFixed(3)} ms CPU per search`);
    return ms;
  };

  const modelApp = await buildTestApp(store);
  // What a request costs besides searching (inject, token, validation, serialisation): no kind asked for.
  await measure('no kind asked for (the request itself)', modelApp, false, 'none');
  for (const kind of (process.env.KINDS ?? 'file_name,recent_contact,collaborator,team_member,department').split(',')) {
    await measure(`read model ${kind}`, modelApp, true, kind);
  }
  for (const varied of process.env.KINDS ? [] : [false, true]) await measure(`read model search, ${varied ? 'varied keywords' : 'the bench keywords'}`, modelApp, varied);
  await modelApp.close();
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
