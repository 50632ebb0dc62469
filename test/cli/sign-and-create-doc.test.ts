import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { asUser, buildTestApp, makeTestConfig, TEST_CONFIG_OVERRIDES } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { commandDatabase, describeEachStore, dialects } from '../helpers/stores.js';
import { decodeJwt, StandInPlatform } from '../platform/stand-in-platform.js';
import { CLI_TOKEN_SECRET, cliEnv, runCli } from './run-cli.js';

const APP = { APP_ID: TEST_CONFIG_OVERRIDES.appId!, APP_SECRET: TEST_CONFIG_OVERRIDES.appSecret! };
let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'collab-host-sign-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describeEachStore('collab-host sign', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store());
  });
  afterAll(() => app.close());

  it('prints a signature that opens GET /admin/files/F and not GET /admin/files/G', async () => {
    const run = await runCli(['sign', '--file-id', 'plan'], { cwd, env: cliEnv('sqlite::memory:', APP) });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const signature = run.stdout.trim();
    expect(run.stdout).toBe(`${signature}\n`);
    const headers = { 'x-platform-credential-type': '3', 'x-platform-signature': signature };
    const f = await app.inject({ method: 'GET', url: '/admin/files/plan', headers });
    expect(f.statusCode).toBe(200);
    expect(f.json().id).toBe('plan');
    const g = await app.inject({ method: 'GET', url: '/admin/files/sheet', headers });
    expect(g.statusCode).toBe(403);
  });

  it('binds --user-id for by-user-id, with the default ttl of 240 seconds', async () => {
    const run = await runCli(['sign', '--file-id', 'plan', '--user-id', 'lilei'], { cwd, env: cliEnv('sqlite::memory:', APP) });
    const signature = run.stdout.trim();
    const { header, claims } = decodeJwt(signature);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: 'test-app' });
    expect(claims).toMatchObject({ fileId: 'plan', userId: 'lilei' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(240);
    const ok = await app.inject({ method: 'GET', url: '/admin/files/plan/by-user-id?userId=lilei', headers: { 'x-platform-signature': signature } });
    expect(ok.statusCode).toBe(200);
    const other = await app.inject({ method: 'GET', url: '/admin/files/plan/by-user-id?userId=zhang', headers: { 'x-platform-signature': signature } });
    expect(other.statusCode).toBe(403);
  });
});

describe('collab-host sign options', () => {
  it('makes license signatures with --scope license and refuses a ttl the platform would refuse', async () => {
    const run = await runCli(['sign', '--scope', 'license', '--ttl', '120'], { cwd, env: cliEnv('sqlite::memory:', APP) });
    expect(run.code).toBe(0);
    const { claims } = decodeJwt(run.stdout.trim());
    expect(claims.scope).toBe('license');
    expect((claims.exp as number) - (claims.iat as number)).toBe(120);

    const tooLong = await runCli(['sign', '--scope', 'license', '--ttl', '300'], { cwd, env: cliEnv('sqlite::memory:', APP) });
    // Usage mistakes: exit 2, the reason on the first line, then the usage.
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr.split('\n')[0]).toBe('--ttl must be under 300 seconds with --scope license: the platform refuses longer license signatures');
    const bad = await runCli(['sign', '--ttl', 'soon'], { cwd, env: cliEnv('sqlite::memory:', APP) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--ttl must be a number of seconds');
    const unknown = await runCli(['sign', '--file', 'x'], { cwd, env: cliEnv('sqlite::memory:', APP) });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('usage: collab-host sign');
  });
});

describe('a malformed PLATFORM_API_URL', () => {
  it('is refused by loadConfig with one line naming the variable and the rule', () => {
    expect(() => loadConfig({ PLATFORM_API_URL: 'ftp://platform.example.com' })).toThrow(new ConfigError('PLATFORM_API_URL must start with http(s)://'));
    expect(() => loadConfig({ PLATFORM_API_URL: 'platform.example.com' })).toThrow('PLATFORM_API_URL must start with http(s)://');
    expect(loadConfig({ PLATFORM_API_URL: 'https://platform.example.com/' }).platformApiUrl).toBe('https://platform.example.com');
  });

  it('stops the commands with that line and exit 1', async () => {
    for (const args of [['create-doc', '--user', 'zhang', '--type', 'document'], ['serve']]) {
      const run = await runCli(args, { cwd, env: cliEnv('sqlite::memory:', { ...APP, PLATFORM_API_URL: 'ftp://platform.example.com', PORT: '0' }) });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('PLATFORM_API_URL must start with http(s)://\n');
    }
  });
});

/** A DATABASE_URL for the CLI on the dialect, seeded with the fixture, and a store over the same data. */
const seededDatabase = (dialect: DialectName) => commandDatabase(dialect, cwd, (store) => seedDirectory(store.db));

for (const dialect of dialects) {
  describe(`collab-host create-doc [${dialect}]`, () => {
    const platform = new StandInPlatform();
    let database: Awaited<ReturnType<typeof seededDatabase>>;
    let store: OpenDatabase;
    let app: FastifyInstance;

    beforeAll(async () => {
      await platform.start();
      database = await seededDatabase(dialect);
    });
    afterAll(async () => {
      await app?.close();
      await store?.close();
      await platform.stop();
      await database.drop();
    });

    const env = () => cliEnv(database.url, { ...APP, PLATFORM_API_URL: platform.url });

    it('creates a document whose creator then gets manageable: true', async () => {
      const run = await runCli(['create-doc', '--user', 'lilei', '--type', 'spreadsheet', '--file-id', 'cli-sheet', '--name', '预算'], { cwd, env: env() });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('cli-sheet\n');
      const call = platform.calls.at(-1)!;
      expect(call.body).toEqual({ type: 'spreadsheet', fileId: 'cli-sheet' });
      expect(call.query.get('appId')).toBe('test-app');
      // An unscoped signature, in the query and in the kit's header (create is not a license call).
      expect(decodeJwt(call.query.get('signature')!).claims.scope).toBeUndefined();
      expect(call.headers['x-platform-signature']).toBe(call.query.get('signature'));

      store = await database.open();
      app = await buildTestApp(store, { tokenSecret: CLI_TOKEN_SECRET });
      const seen = await app.inject({ method: 'GET', url: '/files/cli-sheet', headers: asUser('lilei', makeTestConfig({ tokenSecret: CLI_TOKEN_SECRET })) });
      expect(seen.statusCode).toBe(200);
      expect(seen.json()).toMatchObject({ id: 'cli-sheet', name: '预算', type: 'spreadsheet', creatorId: 'lilei' });
      expect(seen.json().permissions.manageable).toBe(true);
      // The token the platform was given is the creator's, valid for this server's callbacks.
      const asPlatform = await app.inject({ method: 'GET', url: '/users/current/info', headers: { 'x-platform-token': call.query.get('token')! } });
      expect(asPlatform.json().id).toBe('lilei');
    });

    it('reports the platform refusal with its code, exit 1, and leaves no file behind', async () => {
      platform.answerNext({ kind: 'error', status: 409, body: { code: 70012, message: 'file exists' } });
      const run = await runCli(['create-doc', '--user', 'lilei', '--type', 'document', '--file-id', 'cli-dup'], { cwd, env: env() });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'create-doc: the platform refused POST /sdk/v2/api/files: HTTP 409, platform error 70012 (file id already exists): file exists; body {"code":70012,"message":"file exists"}\n',
      );
      expect(await store.db.selectFrom('files').select('id').where('id', '=', 'cli-dup').executeTakeFirst()).toBeUndefined();
    });

    it('refuses an unknown user and missing options', async () => {
      const ghost = await runCli(['create-doc', '--user', 'ghost', '--type', 'document'], { cwd, env: env() });
      expect(ghost.code).toBe(1);
      expect(ghost.stderr).toBe('create-doc: user ghost does not exist\n');
      const missing = await runCli(['create-doc', '--user', 'lilei'], { cwd, env: env() });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--user and --type are required');
    });
  });
}
