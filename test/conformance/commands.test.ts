import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { openDatabase } from '../../src/store/connection/database.js';
import { TEST_CONFIG_OVERRIDES } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { cliEnv, runCli, startCli } from '../cli/run-cli.js';
import { FAKE_APP, startFakeServer, tokenOf, type FakeServer } from './fake-callback-server.js';

// The commands as a user runs them: child processes of bin/collab-host.js.

let cwd: string;
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'collab-host-kit-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const env = (extra: Record<string, string> = {}) => cliEnv('sqlite::memory:', extra);

describe('collab-host check', () => {
  let good: FakeServer;
  let broken: FakeServer;
  beforeAll(async () => {
    good = await startFakeServer();
    broken = await startFakeServer(['time-with-milliseconds']);
  });
  afterAll(async () => {
    await good.close();
    await broken.close();
  });

  it('prints the report and exits 0 when nothing fails', async () => {
    const run = await runCli(['check', good.url, '--token', tokenOf('u1'), '--only', 'users,time'], { cwd, env: env() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`collab-host check ${good.url}\nacting as user u1 of team t1\n\nusers\n  PASS  users.current-info`);
    expect(run.stdout).toMatch(/\n {2}PASS {2}time\.format +§1 +createdAt and updatedAt are exactly YYYY-MM-DDThh:mm:ssZ/);
    expect(run.stdout).toMatch(/\n5 passed, 0 failed, 0 skipped\n$/);
  });

  it('exits 1 and names the rule when a check fails; --json gives the same verdicts', async () => {
    const run = await runCli(['check', broken.url, '--token', tokenOf('u1'), '--skip', 'events,signed,auth', '--json'], { cwd, env: env() });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.summary.failed).toBe(1);
    const failed = report.results.filter((r: { status: string }) => r.status === 'fail');
    expect(failed).toEqual([
      expect.objectContaining({
        id: 'time.format',
        group: 'time',
        section: '1',
        status: 'fail',
        problems: expect.arrayContaining([expect.stringMatching(/\.000Z" is not YYYY-MM-DDThh:mm:ssZ/)]),
      }),
    ]);
    expect(report.results.some((r: { group: string }) => r.group === 'events')).toBe(false);
  });

  it('runs the signed checks with --app-id and --app-secret', async () => {
    const run = await runCli(['check', good.url, '--token', tokenOf('u1'), '--app-id', FAKE_APP.appId, '--app-secret', FAKE_APP.appSecret, '--only', 'signed'], {
      cwd,
      env: env(),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\n5 passed, 0 failed, 0 skipped\n$/);
  });

  it('exits 2 with a message on a usage mistake', async () => {
    const unknown = await runCli(['check', good.url, '--token', 'x', '--only', 'nonsense'], { cwd, env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^unknown check group "nonsense"; groups are users, team, departments, files, collaborators, time, search, auth, guests, signed, events, production\nusage: collab-host check BASE_URL/,
    );
    const noToken = await runCli(['check', good.url], { cwd, env: env() });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('--token is required');
  });
});

describe('collab-host simulate push', () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeServer();
  });
  afterAll(() => server.close());

  it('pushes a token event, learning the acting user from the token, and a signed one', async () => {
    const comment = await runCli(['simulate', 'push', '--to', server.url, '--kind', 'Comment', '--file-id', 'f1', '--token', tokenOf('u2')], { cwd, env: env() });
    expect(comment.stderr).toBe('');
    expect(comment.stdout).toBe('Comment create -> 200 {}\n');
    expect(comment.code).toBe(0);
    const signed = await runCli(
      ['simulate', 'push', '--to', server.url, '--kind', 'FileContent', '--file-id', 'f1', '--user-id', 'u1', '--app-id', FAKE_APP.appId, '--app-secret', FAKE_APP.appSecret],
      { cwd, env: env() },
    );
    expect(signed.stdout).toBe('FileContent update -> 200 {}\n');
    expect(server.events.map((e) => e.kind)).toEqual(['Comment', 'FileContent']);
    expect(server.events[0]?.body).toMatchObject({ kind: 'comment', type: 'comment', action: 'create', fileId: 'f1', userId: 'u2' });
    expect(server.events[1]?.body).toMatchObject({ kind: 'fileContent', action: 'update', fileContent: { version: expect.any(Number) } });
  });

  it('pushes the production shapes: a DateMention with its ids only in createData, a FileContent auto_mention without userId', async () => {
    const before = server.events.length;
    const date = await runCli(
      ['simulate', 'push', '--to', server.url, '--shape', 'production', '--kind', 'DateMention', '--file-id', 'f1', '--user-id', 'u2', '--token', tokenOf('u2')],
      { cwd, env: env() },
    );
    expect(date.stdout).toBe('DateMention create (production) -> 200 {}\n');
    const auto = await runCli(
      [
        'simulate',
        'push',
        '--to',
        server.url,
        '--shape',
        'production',
        '--kind',
        'FileContent',
        '--action',
        'auto_mention',
        '--file-id',
        'f1',
        '--user-id',
        'u1',
        '--app-id',
        FAKE_APP.appId,
        '--app-secret',
        FAKE_APP.appSecret,
      ],
      { cwd, env: env() },
    );
    expect(auto.code).toBe(0);
    const [dateBody, autoBody] = server.events.slice(before).map((e) => e.body as Record<string, unknown>);
    expect(dateBody).toMatchObject({ kind: 'mention', type: 'date_mention', action: 'create', createData: { fileId: 'f1', authorId: 'u2' } });
    expect(dateBody).not.toHaveProperty('fileId');
    expect(autoBody).toMatchObject({ type: 'auto_mention', fileId: 'f1', timestamp: expect.any(Number), autoMention: { editorProviderId: 'u1' } });
    expect(autoBody).not.toHaveProperty('userId');
    const wrong = await runCli(
      ['simulate', 'push', '--to', server.url, '--shape', 'production', '--kind', 'Comment', '--action', 'create', '--file-id', 'f1', '--user-id', 'u1', '--token', 't'],
      { cwd, env: env() },
    );
    expect({ code: wrong.code, first: wrong.stderr.split('\n')[0] }).toEqual({ code: 2, first: '--action for Comment (production shape) is one of like, delete' });
  }, 60_000);

  it('exits 1 when the server refuses the event, and 2 on an unknown kind', async () => {
    const wrongSecret = await runCli(
      ['simulate', 'push', '--to', server.url, '--kind', 'Collaborator', '--action', 'leave', '--file-id', 'f1', '--user-id', 'u1', '--app-id', 'a', '--app-secret', 'wrong'],
      { cwd, env: env() },
    );
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stdout).toMatch(/^Collaborator leave -> 401 /);
    const unknown = await runCli(['simulate', 'push', '--to', server.url, '--kind', 'Like', '--file-id', 'f1', '--token', 't'], { cwd, env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('unknown --kind "Like"; kinds are Comment, Discussion, MentionAt, DateMention, FileContent, Collaborator, Revision, System');
  });
});

describe('collab-host create-doc against collab-host simulate', () => {
  const APP = { APP_ID: TEST_CONFIG_OVERRIDES.appId as string, APP_SECRET: TEST_CONFIG_OVERRIDES.appSecret as string };
  let sim: RunningSimulator;
  let databaseUrl: string;
  beforeAll(async () => {
    sim = await startSimulator({ credentials: { appId: APP.APP_ID, appSecret: APP.APP_SECRET } });
    databaseUrl = `sqlite:${join(cwd, 'create-doc.db')}`;
    const store = await openDatabase(databaseUrl);
    await seedDirectory(store.db);
    await store.close();
  });
  afterAll(() => sim.close());

  it("is accepted (the platform now knows the document and the creator's token), and an id the platform already holds is refused with 70012", { timeout: 90_000 }, async () => {
    const envWithPlatform = cliEnv(databaseUrl, { ...APP, PLATFORM_API_URL: sim.url });
    const run = await runCli(['create-doc', '--user', 'zhang', '--type', 'documentPro', '--file-id', 'sim-doc', '--name', 'Simulated'], { cwd, env: envWithPlatform });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(sim.platform.files.get('sim-doc')).toMatchObject({ fileId: 'sim-doc', type: 'documentPro', token: expect.any(String) });
    // An id the platform already holds (created by another integrator system): the platform's 70012 comes through.
    sim.platform.world.addFile('sim-doc-3', 'document', 't');
    const taken = await runCli(['create-doc', '--user', 'zhang', '--type', 'document', '--file-id', 'sim-doc-3'], { cwd, env: envWithPlatform });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('platform error 70012 (file id already exists)');
  });
});

describe('collab-host simulate', () => {
  it('starts, says how to use it, and serves the platform API until stopped', async () => {
    const running = await startCli(['simulate', '--port', '0', '--app-id', 'a1', '--app-secret', 's1', '--endpoint-url', 'http://127.0.0.1:9'], {
      cwd,
      env: env(),
      ready: /open one in the editor page: +(http:\/\/127\.0\.0\.1:\d+)\/editor/,
    });
    try {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())?.[1] as string;
      expect(running.stdout()).toContain('(app a1, callbacks to http://127.0.0.1:9)');
      const refused = await fetch(`${url}/sdk/v2/api/files?appId=a1&token=t`, { method: 'POST', body: '{}' });
      expect(await refused.json()).toEqual({ code: 70001, message: 'signature is required (X-Platform-Signature or ?signature=)' });
    } finally {
      await running.stop();
    }
  });
});
