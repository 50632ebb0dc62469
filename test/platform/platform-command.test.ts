import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { StandInPlatform } from './stand-in-platform.js';

const APP = { APP_ID: 'cli-app', APP_SECRET: 'cli-app-secret-0123456789' };
const cwd = mkdtempSync(join(tmpdir(), 'collab-host-platform-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('collab-host platform against collab-host simulate', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ credentials: { appId: APP.APP_ID, appSecret: APP.APP_SECRET } });
  });
  afterAll(() => sim.close());
  const env = (extra: Record<string, string> = {}) => cliEnv('sqlite::memory:', { ...APP, PLATFORM_API_URL: sim.url, ...extra });

  it('prints its usage for --help (exit 0) and refuses a usage mistake with exit 2 before calling anything', { timeout: 120_000 }, async () => {
    const help = await runCli(['platform', '--help'], { cwd, env: env() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('  seats reconcile [--dry-run]');
    expect(help.stdout).toContain('  export --file-id F --format docx|md|jpg|pdf|wps|xlsx|pptx [--user U]');
    const unknown = await runCli(['platform', 'frobnicate'], { cwd, env: env() });
    expect({ code: unknown.code, first: unknown.stderr.split('\n')[0] }).toEqual({ code: 2, first: 'unknown call "frobnicate"' });
    const missing = await runCli(['platform', 'copy', '--file-id', 'a', '--user', 'u'], { cwd, env: { ...env(), PLATFORM_API_URL: '' } });
    expect({ code: missing.code, first: missing.stderr.split('\n')[0] }).toEqual({ code: 2, first: '--to is required' });
    const badStatus = await runCli(['platform', 'seats', 'status', '--status', '5', 'u1'], { cwd, env: env() });
    expect(badStatus.code).toBe(2);
  });

  it('makes the calls and prints what the platform answered; --json for scripts; a refusal exits 1 with its status and body', { timeout: 120_000 }, async () => {
    const created = await runCli(['platform', 'create', '--file-id', 'cli-doc', '--type', 'spreadsheet', '--user', 'zhang'], { cwd, env: env() });
    expect(created).toEqual({ code: 0, stdout: 'created cli-doc\n', stderr: '' });
    expect(sim.platform.files.get('cli-doc')?.token).toMatch(/^ey/);
    const activated = await runCli(['platform', 'seats', 'activate', 'zhang', 'lilei', '--json'], { cwd, env: env() });
    expect(activated.stdout).toBe('{"ok":true}\n');
    const seats = await runCli(['platform', 'seats', 'list', '--json'], { cwd, env: env() });
    expect(JSON.parse(seats.stdout).map((seat: { userId: string; status: number }) => [seat.userId, seat.status])).toEqual([
      ['lilei', 1],
      ['zhang', 1],
    ]);

    const missing = await runCli(['platform', 'delete', '--file-id', 'nope'], { cwd, env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'platform delete: the platform refused DELETE /sdk/v2/api/files/nope: HTTP 404, platform error 70013 (file does not exist): file "nope" does not exist; body {"code":70013,"message":"file \\"nope\\" does not exist"}\n',
    );
    const noPlatform = await runCli(['platform', 'app'], { cwd, env: { ...env(), PLATFORM_API_URL: '' } });
    expect({ code: noPlatform.code, stderr: noPlatform.stderr }).toEqual({
      code: 1,
      stderr: 'PLATFORM_API_URL is not set: set it to the platform (or `collab-host simulate`) address\n',
    });
  });

  it('imports a local file (v1 multipart) and follows the task', { timeout: 60_000 }, async () => {
    const path = join(cwd, 'notes.md');
    writeFileSync(path, '# notes');
    const started = await runCli(['platform', 'import', '--file-id', 'cli-notes', '--type', 'document', '--file', path, '--user', 'zhang', '--json'], { cwd, env: env() });
    const { taskId } = JSON.parse(started.stdout) as { taskId: string };
    const progress = await runCli(['platform', 'import-progress', '--task', taskId, '--json'], { cwd, env: env() });
    expect(JSON.parse(progress.stdout)).toEqual({ progress: 50 });
  });
});

describe('collab-host platform against a stand-in that accepts only header credentials', () => {
  it('is answered', async () => {
    const platform = new StandInPlatform({ headerCredentialsOnly: true });
    await platform.start();
    try {
      platform.answerNext({ kind: 'json', status: 200, body: { appName: 'Galaxy', memberLimit: 50 } });
      const run = await runCli(['platform', 'app', '--json'], { cwd, env: cliEnv('sqlite::memory:', { ...APP, PLATFORM_API_URL: platform.url }) });
      expect(run.stdout).toBe('{"appName":"Galaxy","memberLimit":50}\n');
      expect(platform.calls[0]!.path).toBe('/sdk/v2/api/license/apps/cli-app');
    } finally {
      await platform.stop();
    }
  });
});

for (const dialect of dialects) {
  describe(`collab-host platform seats reconcile [${dialect}]`, () => {
    let sim: RunningSimulator;
    let databaseUrl: string;
    let drop = async () => {};
    beforeAll(async () => {
      sim = await startSimulator({ credentials: { appId: APP.APP_ID, appSecret: APP.APP_SECRET } });
      const fresh = await freshStore(dialect);
      drop = fresh.drop;
      databaseUrl = fresh.url;
      const store = await fresh.open();
      await seedDirectory(store.db);
      await store.db.updateTable('users').set({ active: 0 }).where('id', 'in', ['olga', 'bob']).execute();
      await store.close();
      for (const [userId, status] of [
        ['olga', 1],
        ['zhang', 1],
        ['lilei', 0],
        ['ghost', 1],
      ] as const)
        sim.platform.world.seats.set(userId, { status, createdAt: '2025-01-01T00:00:00Z' });
    });
    afterAll(async () => {
      await sim.close();
      await drop();
    });

    it('says what it would change with --dry-run, then makes the active users exactly those holding a seat', { timeout: 90_000 }, async () => {
      const env = cliEnv(databaseUrl, { ...APP, PLATFORM_API_URL: sim.url });
      const dry = await runCli(['platform', 'seats', 'reconcile', '--dry-run'], { cwd, env });
      expect(dry.stdout).toBe('4 seats listed; would deactivate 2 (ghost, olga); would activate 6 (alice, carol, hanmeimei, lilei, outsider, wang)\n');
      expect(sim.platform.world.seats.get('olga')?.status).toBe(1);
      const real = await runCli(['platform', 'seats', 'reconcile', '--json'], { cwd, env });
      expect(JSON.parse(real.stdout)).toMatchObject({ dryRun: false, deactivate: ['ghost', 'olga'] });
      const holding = [...sim.platform.world.seats]
        .filter(([, seat]) => seat.status === 1)
        .map(([id]) => id)
        .sort();
      expect(holding).toEqual(['alice', 'carol', 'hanmeimei', 'lilei', 'outsider', 'wang', 'zhang']);
      const again = await runCli(['platform', 'seats', 'reconcile', '--dry-run'], { cwd, env });
      expect(again.stdout).toBe('9 seats listed; would deactivate 0; would activate 0\n');
    });
  });
}
