/**
 * Runs sqlmap (Debian's package: `apt-get install sqlmap`) against every parameter of collab-host that
 * reaches SQL: each query parameter and path id of the OpenAPI document's GET operations (the `/api`
 * listings with their filters and cursors, the callbacks, SCIM's filter, sorting and paging), the JSON
 * fields of `POST /search` and `POST /users/batch/get`. The server is the real app over the demo data,
 * on SQLite (default) or PostgreSQL (`--pg URL`), on a random local port; each request carries the
 * credential its surface needs, so sqlmap reaches the code behind authentication.
 *
 *   npx tsx scripts/sqlmap-scan.ts                       # SQLite, level 2, risk 1 (a few minutes)
 *   npx tsx scripts/sqlmap-scan.ts --level 5 --risk 3    # what the scan of issue 31 ran (hours)
 *   npx tsx scripts/sqlmap-scan.ts --pg postgres://postgres@127.0.0.1:5432/test --only scim
 *
 * Exits 1 when sqlmap calls any parameter injectable, 2 when sqlmap is missing. Not part of `npm test` or
 * CI (it takes minutes to hours); docs/operations.md, "Scanning for SQL injection", says when to run it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { withPg } from '../bench/pg-client.js';
import { buildApp } from '../src/composition/app.js';
import { mintSignature } from '../src/auth/platform-signature.js';
import { mintUserToken } from '../src/auth/user-token.js';
import { testConfig } from '../src/config/config.js';
import { readSyncConfig } from '../src/config/sync.js';
import { seedDemoIfEmpty } from '../src/composition/demo-data.js';
import { openDatabase } from '../src/store/connection/database.js';

const { values: options } = parseArgs({
  options: {
    pg: { type: 'string' },
    level: { type: 'string', default: '2' },
    risk: { type: 'string', default: '1' },
    only: { type: 'string' },
    sqlmap: { type: 'string', default: 'sqlmap' },
  },
});

const ADMIN_KEY = `scan-admin-${randomBytes(8).toString('hex')}`;
const SCIM_TOKEN = `scan-scim-${randomBytes(8).toString('hex')}`;
/** Values that exist in the demo data, so the lookups behind a parameter run (sqlmap marks them with `*`). */
const KNOWN: Record<string, string> = {
  fileId: 'plan-2024q3',
  userId: 'zhangsan',
  departmentId: 'rd',
  teamId: 'galaxy',
  teamGuid: 'galaxy',
  principal: 'user:lisi',
  channelId: 'none',
  eventId: '1',
};

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  data?: string;
}

async function main(): Promise<void> {
  const schema = options.pg ? `sqlmap_${Date.now().toString(36)}` : undefined;
  if (options.pg && schema) await withPg(options.pg, (client) => client.query(`CREATE SCHEMA "${schema}"`));
  const dir = mkdtempSync(join(tmpdir(), 'collab-host-sqlmap-'));
  const store = await openDatabase(options.pg ?? `sqlite:${join(dir, 'scan.db')}`, schema ? { schema } : {});
  const config = testConfig({
    appId: 'scan-app',
    appSecret: randomBytes(16).toString('hex'),
    tokenSecret: randomBytes(16).toString('hex'),
    adminApiKey: ADMIN_KEY,
    sync: readSyncConfig((name) => ({ SCIM_TOKEN, SCIM_TEAM_ID: 'galaxy' })[name]),
  });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    await seedDemoIfEmpty(store);
    app = await buildApp({ config, store, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as OpenApi;
    const credentials = credentialsFor(config);
    const targets = targetsOf(document, base, credentials).filter((target) => !options.only || target.name.includes(options.only));
    console.log(`sqlmap ${options.level}/${options.risk} against ${targets.length} targets on ${options.pg ? 'PostgreSQL' : 'SQLite'} (${base})`);
    const injectable: string[] = [];
    for (const [index, target] of targets.entries()) {
      const verdict = await runSqlmap(target, join(dir, `out-${index}`), options.pg ? 'PostgreSQL' : 'SQLite');
      console.log(`${verdict.padEnd(12)} ${target.name}`);
      if (verdict === 'INJECTABLE') injectable.push(target.name);
    }
    console.log(injectable.length === 0 ? 'no parameter injectable' : `INJECTABLE: ${injectable.join(', ')}`);
    process.exitCode = injectable.length === 0 ? 0 : 1;
  } finally {
    await app?.close();
    await store.close();
    if (options.pg && schema) await withPg(options.pg, (client) => client.query(`DROP SCHEMA "${schema}" CASCADE`));
    rmSync(dir, { recursive: true, force: true });
  }
}

type OpenApi = { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>> };

function credentialsFor(config: ReturnType<typeof testConfig>) {
  const user = { 'X-Platform-Token': mintUserToken('zhangsan', config.tokenSecret, 24 * 3600) };
  // A signature lives at most SIGNATURE_MAX_LIFETIME (24 h): enough for one scan.
  const signed = (fileId: string) => ({ 'X-Platform-Credential-Type': '3', 'X-Platform-Signature': mintSignature(config, { ttlSeconds: 23 * 3600, fileId }) });
  return (path: string): Record<string, string> => {
    if (path.startsWith('/api/')) return { Authorization: `Bearer ${ADMIN_KEY}` };
    if (path.startsWith('/scim/')) return { Authorization: `Bearer ${SCIM_TOKEN}` };
    if (path.startsWith('/admin/')) return signed(KNOWN.fileId!);
    return user;
  };
}

/** One target per parameter: the GET operations' query parameters and path ids, and the JSON bodies that search. */
function targetsOf(document: OpenApi, base: string, credentials: (path: string) => Record<string, string>): Target[] {
  const targets: Target[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    const operation = methods.get;
    if (!operation) continue;
    const parameters = operation.parameters ?? [];
    const filled = (marked?: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => `${encodeURIComponent(KNOWN[name] ?? 'x')}${name === marked ? '*' : ''}`);
    for (const parameter of parameters.filter((item) => item.in === 'path')) {
      targets.push({ name: `GET ${path} (path ${parameter.name})`, url: `${base}${filled(parameter.name)}`, headers: credentials(path) });
    }
    for (const parameter of parameters.filter((item) => item.in === 'query')) {
      const value = parameter.name === 'filter' ? encodeURIComponent('userName eq "zhangsan"') : encodeURIComponent(KNOWN[parameter.name] ?? '1');
      targets.push({ name: `GET ${path} (query ${parameter.name})`, url: `${base}${filled()}?${parameter.name}=${value}*`, headers: credentials(path) });
    }
  }
  const json = { 'Content-Type': 'application/json' };
  targets.push(
    { name: 'POST /search (body keyword)', url: `${base}/search`, headers: { ...credentials('/search'), ...json }, data: '{"type":"file_name","keyword":"plan*"}' },
    {
      name: 'POST /search (body fileId)',
      url: `${base}/search`,
      headers: { ...credentials('/search'), ...json },
      data: '{"type":"file_collaborator","keyword":"li","fileId":"plan-2024q3*"}',
    },
    { name: 'POST /users/batch/get (body ids)', url: `${base}/users/batch/get`, headers: { ...credentials('/users'), ...json }, data: '{"ids":["zhangsan*","lisi"]}' },
  );
  return targets;
}

/** Runs sqlmap on one target; its verdict from its output. */
function runSqlmap(target: Target, outputDir: string, dbms: string): Promise<'INJECTABLE' | 'clean' | 'not tested'> {
  const args = [
    '-u',
    target.url,
    '--batch',
    '--flush-session',
    '--disable-coloring',
    `--level=${options.level}`,
    `--risk=${options.risk}`,
    `--dbms=${dbms}`,
    `--output-dir=${outputDir}`,
    '--answers=custom injection marker=Y,keep testing the others=Y',
    ...Object.entries(target.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    ...(target.data === undefined ? [] : ['--data', target.data]),
  ];
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(options.sqlmap, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        console.error(`${options.sqlmap} is not installed: apt-get install sqlmap (or --sqlmap PATH)`);
        process.exit(2);
      }
      reject(error);
    });
    child.on('close', () => {
      if (/sqlmap identified the following injection point|is vulnerable|appears to be '.*' injectable/i.test(output)) resolve('INJECTABLE');
      else if (/do not appear to be injectable|does not seem to be injectable/i.test(output)) resolve('clean');
      else resolve('not tested');
    });
  });
}

await main();
