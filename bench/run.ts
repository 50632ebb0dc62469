/**
 * `npm run bench`: measures collab-host at company scale against the machine's own ceiling.
 *
 *   npm run bench                         SQLite, 100k users / 1k departments / 200k files / ~1M grants
 *   npm run bench -- --pg postgres://…    the same on PostgreSQL too (a fresh schema, dropped afterwards)
 *   npm run bench -- --quick              a small company and short runs, to check the harness itself
 *   options: --duration S (default 10), --warmup S (default 3), --connections N (default 50),
 *            --only REGEX (routes and runs whose name matches), --reuse PATH (an already imported SQLite
 *            file: skips generation and import; the ids are read from it), --rate N (the open loop's
 *            searches per second, default 300),
 *            --keep DIR (keep the snapshot and the SQLite file in DIR, for --reuse DIR/bench.db),
 *            --reuse-pg URL (a PostgreSQL schema imported before, e.g. with --keep-pg), --keep-pg SCHEMA
 *            (import into that schema of --pg and keep it), --profile DIR (CPU profiles of the served
 *            processes, written when they stop)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { withPg } from './pg-client.js';
import { describeEventLag, readEventLag, type EventLag } from './event-lag.js';
import { actorsOf, COMPANY_SCALE, generateCompany, type GenerateOptions } from './generate.js';
import { mixedRun, openLoop } from './load.js';
import { renderMarkdown, type EventRun, type RouteResult, type ScimRun, type StoreReport } from './report.js';
import { buildScenarios, RequestMaker, type Scenario, type ScenarioData } from './scenarios.js';

const ROOT = new URL('..', import.meta.url).pathname;
const SECRETS = {
  TOKEN_SECRET: 'bench-token-secret-0123456789abcdef',
  APP_ID: 'bench-app',
  APP_SECRET: 'bench-app-secret-0123456789abcdef',
};
const ADMIN_API_KEY = 'bench-admin-key-0123456789abcdef';
const SCIM_TOKEN = 'bench-scim-token-0123456789abcdef';
/** Users the SCIM run creates, as an identity provider's first push does. */
const SCIM_USERS = 10_000;
/** How long after an events run its waiting events are counted. */
const AFTER_LOAD_MS = 5_000;

const { values: args } = parseArgs({
  options: {
    pg: { type: 'string' },
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    only: { type: 'string' },
    reuse: { type: 'string' },
    rate: { type: 'string' },
    keep: { type: 'string' },
    'reuse-pg': { type: 'string' },
    'keep-pg': { type: 'string' },
    profile: { type: 'string' },
  },
});

const scale: GenerateOptions = args.quick ? { users: 2_000, departments: 100, files: 4_000, grantsPerFile: 5 } : COMPANY_SCALE;
const duration = Number(args.duration ?? (args.quick ? 3 : 10));
const warmup = Number(args.warmup ?? (args.quick ? 1 : 3));
const connections = Number(args.connections ?? 50);
const openLoopRate = Number(args.rate ?? 300);
const only = args.only ? new RegExp(args.only, 'i') : undefined;
const selected = (name: string) => !only || only.test(name);

async function main(): Promise<void> {
  if (args.reuse) return reuseStore(`sqlite:${args.reuse}`);
  if (args['reuse-pg']) return reuseStore(args['reuse-pg']);
  // --keep DIR: the snapshot and the SQLite file stay there, for later runs with --reuse DIR/bench.db.
  const work = args.keep ?? mkdtempSync(join(tmpdir(), 'collab-bench-'));
  mkdirSync(work, { recursive: true });
  try {
    log(`generating ${scale.users} users, ${scale.departments} departments, ${scale.files} files…`);
    const company = generateCompany(scale);
    const snapshotPath = join(work, 'snapshot.json');
    writeFileSync(snapshotPath, JSON.stringify(company.snapshot));
    log(`${company.grantCount} grants; snapshot ${(readFileSync(snapshotPath).length / 1e6).toFixed(1)} MB`);
    const data: ScenarioData = {
      userIds: company.snapshot.users.map((user) => user.id),
      fileIds: company.snapshot.files.map((file) => file.id),
      departmentIds: company.snapshot.departments.map((department) => department.id),
      actors: actorsOf(company.snapshot.files),
      userNames: company.snapshot.users.slice(0, 5_000).map((user) => user.name),
      teamId: company.snapshot.teams[0]?.id ?? 't1',
      ...SECRETS,
    };

    const ceiling = await measureCeiling();
    log(`ceiling: ${ceiling.requestsPerSecond.toFixed(0)} req/s, p99 ${ceiling.p99Ms} ms`);

    const reports: StoreReport[] = [await benchStore('sqlite', `sqlite:${join(work, 'bench.db')}`, snapshotPath, data, ceiling)];
    if (args.pg) {
      const schema = args['keep-pg'] ?? `bench_${Date.now()}`;
      await withPg(args.pg, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`));
      try {
        const url = withSearchPath(args.pg, schema);
        reports.push(await benchStore('postgres', url, snapshotPath, data, ceiling));
      } finally {
        if (!args['keep-pg']) await withPg(args.pg, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      }
    }

    const markdown = renderMarkdown(header(), ceiling, reports);
    process.stdout.write(`\n${markdown}\n`);
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const jsonPath = join(ROOT, 'bench/results', 'latest.json');
    writeFileSync(
      jsonPath,
      JSON.stringify({ measuredAt: new Date().toISOString(), scale, grants: company.grantCount, duration, connections, openLoopRate, ceiling, reports }, null, 2),
    );
    log(`results written to bench/results/latest.json`);
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
}

/** Measures the routes on a store imported earlier (`sqlite:PATH` or a PostgreSQL URL; no generation, no import). */
async function reuseStore(databaseUrl: string): Promise<void> {
  const ids = await readIds(databaseUrl);
  const data: ScenarioData = { ...ids, ...SECRETS };
  const ceiling = await measureCeiling();
  log(`ceiling: ${ceiling.requestsPerSecond.toFixed(0)} req/s, p99 ${ceiling.p99Ms} ms`);
  const store = databaseUrl.startsWith('sqlite:') ? 'sqlite (reused)' : 'postgres (reused)';
  const report = await serveAndDrive(store, databaseUrl, data, ceiling);
  process.stdout.write(`\n${renderMarkdown(header(), ceiling, [{ ...report, importSeconds: Number.NaN }])}\n`);
}

const ID_QUERIES = {
  userIds: 'SELECT id FROM users',
  fileIds: "SELECT id FROM files WHERE status = 'active'",
  departmentIds: 'SELECT id FROM departments',
  actors: `SELECT id AS "fileId", creator_id AS "userId" FROM files WHERE status = 'active'
           UNION ALL SELECT file_id, principal_id FROM file_grants WHERE principal_kind = 'user' AND role_rank >= 3`,
  userNames: 'SELECT name FROM users ORDER BY id LIMIT 5000',
  teamId: 'SELECT id FROM teams ORDER BY id LIMIT 1',
} as const;

/** The ids the scenarios draw from, read from an imported store. */
async function readIds(databaseUrl: string): Promise<Omit<ScenarioData, keyof typeof SECRETS>> {
  const rows = async (query: (text: string) => Promise<Array<Record<string, unknown>>>) => {
    const column = async (text: string) => (await query(text)).map((row) => String(Object.values(row)[0]));
    return {
      userIds: await column(ID_QUERIES.userIds),
      fileIds: await column(ID_QUERIES.fileIds),
      departmentIds: await column(ID_QUERIES.departmentIds),
      actors: (await query(ID_QUERIES.actors)) as unknown as ScenarioData['actors'],
      userNames: await column(ID_QUERIES.userNames),
      teamId: (await column(ID_QUERIES.teamId))[0] ?? 't1',
    };
  };
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const sqlite = new SQLite(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      return await rows(async (text) => sqlite.prepare(text).all() as Array<Record<string, unknown>>);
    } finally {
      sqlite.close();
    }
  }
  return withPg(databaseUrl, (client) => rows(async (text) => (await client.query(text)).rows as Array<Record<string, unknown>>));
}

function header() {
  return { users: scale.users, departments: scale.departments, files: scale.files, connections, duration, warmup };
}

async function measureCeiling(): Promise<RouteResult> {
  const port = await freePort();
  const child = spawnProcess(['node', '--import', 'tsx', join(ROOT, 'bench/ceiling-server.ts')], { PORT: String(port) });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/ping`);
    const result = await drive(`http://127.0.0.1:${port}`, { name: 'ceiling (bare Fastify route)', requests: [{ method: 'GET', path: '/ping' }] }, child.pid);
    return { ...result, ratioToCeiling: 1 };
  } finally {
    await stop(child);
  }
}

async function benchStore(store: string, databaseUrl: string, snapshotPath: string, data: ScenarioData, ceiling: RouteResult): Promise<StoreReport> {
  log(`[${store}] importing the snapshot…`);
  const started = process.hrtime.bigint();
  await runToEnd(['node', join(ROOT, 'bin/collab-host.js'), 'import', snapshotPath, '--replace'], { DATABASE_URL: databaseUrl });
  const importSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  log(`[${store}] imported in ${importSeconds.toFixed(1)} s`);
  return { ...(await serveAndDrive(store, databaseUrl, data, ceiling)), importSeconds };
}

async function serveAndDrive(store: string, databaseUrl: string, data: ScenarioData, ceiling: RouteResult): Promise<StoreReport> {
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    ADMIN_API_KEY,
    SCIM_TOKEN,
    SCIM_TEAM_ID: data.teamId,
    ...SECRETS,
  };
  const server = await startServer(env);
  const servers = [server];
  try {
    const { base } = server;
    const maker = new RequestMaker(data);
    const routes: RouteResult[] = [];
    const eventRuns: EventRun[] = [];
    for (const scenario of buildScenarios(maker).filter((candidate) => selected(candidate.name))) {
      const from = Date.now();
      const result = await drive(base, scenario, server.child.pid);
      routes.push({ ...result, ratioToCeiling: result.requestsPerSecond / ceiling.requestsPerSecond });
      log(`[${store}] ${scenario.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
      if (scenario.name.startsWith('POST /events')) eventRuns.push(await afterEvents(store, scenario.name, databaseUrl, from, result, ceiling));
    }

    // PostgreSQL serves several instances: the same events through two, each taking half the connections.
    const twoInstances = 'POST /events (mixed kinds), two instances';
    if (!databaseUrl.startsWith('sqlite:') && selected(twoInstances)) {
      const second = await startServer(env);
      servers.push(second);
      const from = Date.now();
      const scenario = buildScenarios(maker).find((candidate) => candidate.name.startsWith('POST /events'))!;
      const result = await driveMany([server, second], scenario);
      const named = { ...result, route: twoInstances };
      routes.push({ ...named, ratioToCeiling: result.requestsPerSecond / ceiling.requestsPerSecond });
      log(`[${store}] ${twoInstances}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms`);
      eventRuns.push(await afterEvents(store, twoInstances, databaseUrl, from, named, ceiling));
      await stop(second.child);
      servers.pop();
    }

    const openLoopRuns: StoreReport['openLoop'] = [];
    for (const [name, varied] of [
      [`POST /search open loop, bench keywords`, false],
      [`POST /search open loop, varied keywords`, true],
    ] as const) {
      if (!selected(name)) continue;
      await openLoop(base, name, openLoopRate, warmup, () => maker.search(varied));
      const run = { ...(await openLoop(base, name, openLoopRate, duration, () => maker.search(varied))), ratePerSecond: openLoopRate };
      openLoopRuns.push(run);
      log(`[${store}] ${name} at ${openLoopRate}/s: p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms`);
    }

    const mixed: StoreReport['mixed'] = [];
    if (selected('mixed')) {
      const shares = [
        { route: 'mixed: GET /files/{fileId}', share: 70, make: () => maker.openFile() },
        { route: 'mixed: POST /search (all kinds)', share: 20, make: () => maker.search() },
        { route: 'mixed: POST /events (mixed kinds)', share: 10, make: () => maker.event() },
      ];
      const figures = await mixedRun(base, shares, connections, warmup, duration);
      figures.forEach((figure, index) => mixed.push({ ...figure, share: shares[index]?.share ?? 0 }));
      for (const figure of figures) log(`[${store}] ${figure.route}: ${figure.requestsPerSecond.toFixed(0)} req/s, p99 ${figure.p99Ms} ms`);
    }

    // Last: the new users change the directory every other run reads.
    const scim = selected('scim') ? await createScimUsers(store, server, maker) : undefined;

    const effectLag = await readEffectLag(base);
    const memory = processMemory(server.child.pid as number);
    return { store, importSeconds: Number.NaN, ...memory, routes, openLoop: openLoopRuns, mixed, effectLag, eventRuns, ...(scim ? { scim } : {}) };
  } finally {
    for (const running of servers) await stop(running.child);
  }
}

interface RunningServer {
  child: ChildProcess;
  base: string;
}

/** `collab-host serve` on a free port (with --profile, writing a CPU profile when it stops). */
async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const profile = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
  const child = spawnProcess(['node', ...profile, join(ROOT, 'bin/collab-host.js'), 'serve'], { ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  // Ready: the directory is in memory (the read model loads after listening; requests meanwhile wait or fail).
  await waitForHttp(`${base}/readyz`, 300_000);
  return { child, base };
}

/** An events run's figures: rate against the ceiling, CPU per event, the effect lag of its events and what waits 5 s after it. */
async function afterEvents(store: string, route: string, databaseUrl: string, from: number, result: Omit<RouteResult, 'ratioToCeiling'>, ceiling: RouteResult): Promise<EventRun> {
  const to = Date.now();
  await new Promise((resolve) => setTimeout(resolve, AFTER_LOAD_MS));
  const lag: EventLag = await readEventLag(databaseUrl, from, to);
  log(`[${store}] ${route}: effect lag ${describeEventLag(lag)}`);
  return {
    route,
    perSecond: result.requestsPerSecond,
    ratioToCeiling: result.requestsPerSecond / ceiling.requestsPerSecond,
    ...(result.serverCpuMsPerRequest === undefined ? {} : { serverCpuMs: result.serverCpuMsPerRequest }),
    lag,
  };
}

/** SCIM_USERS users created through POST /scim/v2/Users, `connections` at a time, as an identity provider's first push. */
async function createScimUsers(store: string, server: RunningServer, maker: RequestMaker): Promise<ScimRun> {
  const started = process.hrtime.bigint();
  const cpuBefore = cpuMs(server.child.pid as number);
  const run = `${Date.now().toString(36)}`;
  let sequence = 0;
  const result = await autocannon({
    url: server.base,
    connections,
    amount: SCIM_USERS,
    requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, ...maker.scimUser(run, (sequence += 1), SCIM_TOKEN) }) }],
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const created = result['2xx'];
  const figures: ScimRun = {
    users: created,
    perSecond: created / seconds,
    p99Ms: result.latency.p99,
    serverCpuMs: (cpuMs(server.child.pid as number) - cpuBefore) / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
  };
  log(`[${store}] SCIM: ${created} users in ${seconds.toFixed(1)} s (${figures.perSecond.toFixed(0)}/s), p99 ${figures.p99Ms} ms, ${result.non2xx} non-2xx`);
  return figures;
}

/**
 * The effect lag of events after the runs, from GET /api/events/stats: p50/p99 of the time from
 * acknowledgement to effects over the last 1,000 processed events, and what is still waiting.
 */
async function readEffectLag(base: string): Promise<string> {
  try {
    const response = await fetch(`${base}/api/events/stats`, { headers: { authorization: `Bearer ${ADMIN_API_KEY}` } });
    if (!response.ok) return `n/a (GET /api/events/stats answered ${response.status})`;
    const stats = (await response.json()) as { lag: { p50Ms: number | null; p99Ms: number | null; sample: number }; waiting: { count: number; oldestAgeMs: number } };
    const ms = (value: number | null) => (value === null ? 'n/a' : `${value} ms`);
    return `p50 ${ms(stats.lag.p50Ms)}, p99 ${ms(stats.lag.p99Ms)} over ${stats.lag.sample} events; ${stats.waiting.count} waiting`;
  } catch (error) {
    return `n/a (${(error as Error).message})`;
  }
}

/** Warm-up, then the measured run: `connections` connections for `duration` seconds. */
async function drive(base: string, scenario: Scenario, serverPid?: number): Promise<Omit<RouteResult, 'ratioToCeiling'>> {
  const options = { url: base, connections, requests: scenario.requests };
  await autocannon({ ...options, duration: warmup });
  const cpuBefore = serverPid === undefined ? 0 : cpuMs(serverPid);
  const result = await autocannon({ ...options, duration });
  return {
    route: scenario.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ...(serverPid === undefined ? {} : { serverCpuMsPerRequest: (cpuMs(serverPid) - cpuBefore) / Math.max(1, result.requests.total) }),
  };
}

/** The scenario through several servers at once, the connections shared out; CPU summed over them. */
async function driveMany(servers: readonly RunningServer[], scenario: Scenario): Promise<Omit<RouteResult, 'ratioToCeiling'>> {
  const each = Math.max(1, Math.floor(connections / servers.length));
  await Promise.all(servers.map((server) => autocannon({ url: server.base, connections: each, requests: scenario.requests, duration: warmup })));
  const cpu = () => servers.reduce((sum, server) => sum + cpuMs(server.child.pid as number), 0);
  const cpuBefore = cpu();
  const results = await Promise.all(servers.map((server) => autocannon({ url: server.base, connections: each, requests: scenario.requests, duration })));
  const total = results.reduce((sum, result) => sum + result.requests.total, 0);
  return {
    route: scenario.name,
    requestsPerSecond: results.reduce((sum, result) => sum + result.requests.average, 0),
    p50Ms: Math.max(...results.map((result) => result.latency.p50)),
    p99Ms: Math.max(...results.map((result) => result.latency.p99)),
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
    errors: results.reduce((sum, result) => sum + result.errors + result.timeouts, 0),
    serverCpuMsPerRequest: (cpu() - cpuBefore) / Math.max(1, total),
  };
}

/**
 * CPU time (user + system, all threads) the process has used, in ms: per request it says what a route
 * costs the server whatever else runs on the machine, which wall-clock rates on a shared machine do not.
 */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
}

/** Resident memory of the server process (its worker threads included) now, and its peak. */
function processMemory(pid: number): { residentMemoryMb: number; peakMemoryMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  return { residentMemoryMb: kb('VmRSS'), peakMemoryMb: kb('VmHWM') };
}

function spawnProcess(command: string[], env: Record<string, string>): ChildProcess {
  const [file, ...rest] = command as [string, ...string[]];
  const child = spawn(file, rest, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  return child;
}

function runToEnd(command: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnProcess(command, env);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command.join(' ')} exited with ${code}`))));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema},public`);
  return parsed.toString();
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

await main();
