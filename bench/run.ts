/**
 * `npm run bench`: measures collab-host at company scale against the machine's own ceiling.
 *
 *   npm run bench                         SQLite, 100k users / 1k departments / 200k files / ~1M grants
 *   npm run bench -- --pg postgres://…    the same on PostgreSQL too (a fresh schema, dropped afterwards)
 *   npm run bench -- --quick              a small company and short runs, to check the harness itself
 *   options: --duration S (default 10), --warmup S (default 3), --connections N (default 50),
 *            --only REGEX (routes whose name matches), --reuse PATH (an already imported SQLite file:
 *            skips generation and import; the ids are read from it)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { COMPANY_SCALE, generateCompany, type GenerateOptions } from './generate.js';
import { buildScenarios, type Scenario, type ScenarioData } from './scenarios.js';

const ROOT = new URL('..', import.meta.url).pathname;
const SECRETS = {
  TOKEN_SECRET: 'bench-token-secret-0123456789abcdef',
  APP_ID: 'bench-app',
  APP_SECRET: 'bench-app-secret-0123456789abcdef',
};

interface RouteResult {
  route: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ratioToCeiling: number;
  non2xx: number;
  errors: number;
}

interface StoreReport {
  store: string;
  importSeconds: number;
  residentMemoryMb: number;
  routes: RouteResult[];
}

const { values: args } = parseArgs({
  options: {
    pg: { type: 'string' },
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    only: { type: 'string' },
    reuse: { type: 'string' },
  },
});

const scale: GenerateOptions = args.quick ? { users: 2_000, departments: 100, files: 4_000, grantsPerFile: 5 } : COMPANY_SCALE;
const duration = Number(args.duration ?? (args.quick ? 3 : 10));
const warmup = Number(args.warmup ?? (args.quick ? 1 : 3));
const connections = Number(args.connections ?? 50);

async function main(): Promise<void> {
  if (args.reuse) return reuseStore(args.reuse);
  const work = mkdtempSync(join(tmpdir(), 'collab-bench-'));
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
      ...SECRETS,
    };

    const ceiling = await measureCeiling();
    log(`ceiling: ${ceiling.requestsPerSecond.toFixed(0)} req/s, p99 ${ceiling.p99Ms} ms`);

    const reports: StoreReport[] = [await benchStore('sqlite', `sqlite:${join(work, 'bench.db')}`, snapshotPath, data, ceiling)];
    if (args.pg) {
      const schema = `bench_${Date.now()}`;
      await withPg(args.pg, (client) => client.query(`CREATE SCHEMA ${schema}`));
      try {
        const url = withSearchPath(args.pg, schema);
        reports.push(await benchStore('postgres', url, snapshotPath, data, ceiling));
      } finally {
        await withPg(args.pg, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      }
    }

    const markdown = renderMarkdown(ceiling, reports);
    process.stdout.write(`\n${markdown}\n`);
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const jsonPath = join(ROOT, 'bench/results', 'latest.json');
    writeFileSync(
      jsonPath,
      JSON.stringify({ measuredAt: new Date().toISOString(), scale, grants: company.grantCount, duration, connections, ceiling, reports }, null, 2),
    );
    log(`results written to bench/results/latest.json`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Measures the routes on an SQLite file imported earlier (no generation, no import). */
async function reuseStore(path: string): Promise<void> {
  const { default: SQLite } = await import('better-sqlite3');
  const sqlite = new SQLite(path, { readonly: true });
  const ids = (query: string) => (sqlite.prepare(query).pluck().all() as string[]);
  const data: ScenarioData = {
    userIds: ids('SELECT id FROM users'),
    fileIds: ids("SELECT id FROM files WHERE status = 'active'"),
    departmentIds: ids('SELECT id FROM departments'),
    ...SECRETS,
  };
  sqlite.close();
  const ceiling = await measureCeiling();
  log(`ceiling: ${ceiling.requestsPerSecond.toFixed(0)} req/s, p99 ${ceiling.p99Ms} ms`);
  const report = await serveAndDrive('sqlite (reused)', `sqlite:${path}`, data, ceiling);
  process.stdout.write(`\n${renderMarkdown(ceiling, [{ ...report, importSeconds: Number.NaN }])}\n`);
}

async function measureCeiling(): Promise<RouteResult> {
  const port = await freePort();
  const child = spawnProcess(['node', '--import', 'tsx', join(ROOT, 'bench/ceiling-server.ts')], { PORT: String(port) });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/ping`);
    const result = await drive(`http://127.0.0.1:${port}`, { name: 'ceiling (bare Fastify route)', requests: [{ method: 'GET', path: '/ping' }] });
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
  const port = await freePort();
  const env = { DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', ...SECRETS };
  const server = spawnProcess(['node', join(ROOT, 'bin/collab-host.js'), 'serve'], env);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/healthz`);
    const routes: RouteResult[] = [];
    const only = args.only ? new RegExp(args.only, 'i') : undefined;
    for (const scenario of buildScenarios(data).filter((candidate) => !only || only.test(candidate.name))) {
      const result = await drive(base, scenario);
      routes.push({ ...result, ratioToCeiling: result.requestsPerSecond / ceiling.requestsPerSecond });
      log(`[${store}] ${scenario.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
    }
    const residentMemoryMb = residentMemory(server.pid as number);
    return { store, importSeconds: Number.NaN, residentMemoryMb, routes };
  } finally {
    await stop(server);
  }
}

/** Warm-up, then the measured run: `connections` connections for `duration` seconds. */
async function drive(base: string, scenario: Scenario): Promise<Omit<RouteResult, 'ratioToCeiling'>> {
  const options = { url: base, connections, requests: scenario.requests };
  await autocannon({ ...options, duration: warmup });
  const result = await autocannon({ ...options, duration });
  return {
    route: scenario.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function renderMarkdown(ceiling: RouteResult, reports: StoreReport[]): string {
  const lines: string[] = [];
  lines.push(`Company: ${scale.users} users, ${scale.departments} departments, ${scale.files} files; ${connections} connections, ${duration} s per route after ${warmup} s warm-up.`);
  lines.push('');
  lines.push('| store | route | req/s | p50 ms | p99 ms | × ceiling | non-2xx | errors |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
  lines.push(row('—', ceiling));
  for (const report of reports) for (const route of report.routes) lines.push(row(report.store, route));
  lines.push('');
  lines.push('| store | snapshot import | resident memory after the run |');
  lines.push('|---|---:|---:|');
  for (const report of reports) {
    const seconds = Number.isNaN(report.importSeconds) ? '—' : `${report.importSeconds.toFixed(1)} s`;
    lines.push(`| ${report.store} | ${seconds} | ${report.residentMemoryMb.toFixed(0)} MB |`);
  }
  return lines.join('\n');
}

function row(store: string, result: RouteResult): string {
  return `| ${store} | ${result.route} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms} | ${result.p99Ms} | ${(result.ratioToCeiling * 100).toFixed(0)}% | ${result.non2xx} | ${result.errors} |`;
}

function residentMemory(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
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

async function withPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
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
