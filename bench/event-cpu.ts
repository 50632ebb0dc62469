/**
 * Server CPU per POST /events, in this process (process.cpuUsage), split in two: the intake alone (the
 * processor off, so only authentication, the trust check and the group-committed append), then the
 * effects of those events derived behind it (the processor drained). The bench's own event mix
 * (bench/scenarios.ts) over a store imported by the bench, with the directory in memory as `serve` has
 * it. A fixed number of events, `--concurrency` in flight: what a fixed cost per second (polling) adds is
 * left out, unlike the timed runs of `npm run bench`. Relative figures: compare before and after a change.
 *
 *   cp data/bench/bench.db /tmp/copy.db && npx tsx bench/event-cpu.ts --db /tmp/copy.db [--events 4000] [--concurrency 50]
 */
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { buildApp } from '../src/composition/app.js';
import { ModelDirectory } from '../src/directory/read-model/model-directory.js';
import { EventPipeline } from '../src/events/event-pipeline.js';
import { defaultTokenResolver } from '../src/auth/token-resolver.js';
import { SqlDirectory } from '../src/store/directory-reads/sql-directory.js';
import { openDatabase } from '../src/store/connection/database.js';
import { StoreModelSource } from '../src/store/change-feed/read-model/store-model-source.js';
import { makeTestConfig } from '../test/helpers/app.js';
import { RequestMaker, type ScenarioData } from './scenarios.js';

const { values } = parseArgs({ options: { db: { type: 'string' }, events: { type: 'string' }, concurrency: { type: 'string' } } });
if (!values.db) throw new Error('--db PATH: a copy of an SQLite store imported by the bench (it is written to)');
const events = Number(values.events ?? 4_000);
const concurrency = Number(values.concurrency ?? 50);
const SECRETS = { TOKEN_SECRET: 'bench-token-secret-0123456789abcdef', APP_ID: 'bench-app', APP_SECRET: 'bench-app-secret-0123456789abcdef' };

const ids = new SQLite(values.db, { readonly: true });
const column = (text: string) => (ids.prepare(text).all() as Array<Record<string, unknown>>).map((row) => String(Object.values(row)[0]));
const data: ScenarioData = {
  userIds: column('SELECT id FROM users'),
  fileIds: [],
  departmentIds: [],
  actors: ids
    .prepare(
      `SELECT id AS "fileId", creator_id AS "userId" FROM files WHERE status = 'active'
              UNION ALL SELECT file_id, principal_id FROM file_grants WHERE principal_kind = 'user' AND role_rank >= 3`,
    )
    .all() as ScenarioData['actors'],
  userNames: [],
  teamId: '',
  ...SECRETS,
};
ids.close();

const store = await openDatabase(`sqlite:${values.db}`);
const readModel = new StoreModelSource(store, { pollMs: 200 });
const config = makeTestConfig({ appId: SECRETS.APP_ID, appSecret: SECRETS.APP_SECRET, tokenSecret: SECRETS.TOKEN_SECRET, events: { processor: false, maxFanout: 100 } });
const app = await buildApp({ config, store, readModel, logger: false });
await app.ready();
await readModel.loaded;
const maker = new RequestMaker(data);

const send = async (count: number) => {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const request = maker.event();
      const response = await app.inject({ method: 'POST', url: request.path, headers: request.headers, payload: request.body });
      if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
};

// The processor the app would run, driven here once the intake is done (the app's own is off).
const pipeline = new EventPipeline({
  db: store.db,
  directory: new ModelDirectory(readModel, SqlDirectory.over(store)),
  resolveToken: defaultTokenResolver(config.tokenSecret),
  config,
});
// Warm-up: the code paths compiled, some of the caches filled, its effects out of the way.
await send(Math.min(500, events / 4));
await pipeline.processor.drain();

const cpuMs = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};
let started = process.cpuUsage();
let wall = performance.now();
await send(events);
const intakeMs = cpuMs(started);
const intakeWall = performance.now() - wall;
started = process.cpuUsage();
wall = performance.now();
await pipeline.processor.drain();
const effectsMs = cpuMs(started);
const effectsWall = performance.now() - wall;

console.log(`${events} events, ${concurrency} in flight`);
console.log(`intake   ${(intakeMs / events).toFixed(3)} ms CPU per event (${((events / intakeWall) * 1000).toFixed(0)} events/s in this process)`);
console.log(`effects  ${(effectsMs / events).toFixed(3)} ms CPU per event (${((events / effectsWall) * 1000).toFixed(0)} events/s)`);
console.log(`total    ${((intakeMs + effectsMs) / events).toFixed(3)} ms CPU per event`);
await app.close();
await readModel.close();
await store.close();
