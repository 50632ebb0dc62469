import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer } from '../../src/composition/server.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { COMPANY_LDIF, configWithSync, ldapEnv, PEOPLE_DN } from './sync-helpers.js';
import { SKIP_MESSAGE, SLAPD, startSlapd, type RunningSlapd } from './slapd.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';

describe('collab-host sync: usage', { timeout: 120_000 }, () => {
  it('--help exits 0; an unknown source exits 2; without LDAP_URL it fails with exit 1 and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-sync-'));
    const env = cliEnv(`sqlite:${join(dir, 'collab-host.db')}`);
    const help = await runCli(['sync', '--help'], { cwd: dir, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: collab-host sync ldap \[--dry-run\] \[--incremental\]/);
    const unknown = await runCli(['sync', 'ad'], { cwd: dir, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^unknown source "ad"/);
    const off = await runCli(['sync', 'ldap'], { cwd: dir, env });
    expect(off).toMatchObject({ code: 1, stdout: '' });
    expect(off.stderr).toBe('LDAP_URL is not set: see docs/sync.md for the LDAP_* variables\n');
  });
});

if (!SLAPD) {
  console.log(`\n${SKIP_MESSAGE}\n`);
  describe.skip('collab-host sync ldap and serve against slapd', () => {
    it('needs slapd', () => undefined);
  });
} else {
  describe('collab-host sync ldap and the scheduled sync of serve, against slapd', { timeout: 120_000 }, () => {
    let slapd: RunningSlapd;
    // The company, and one person whose name no rule lets in: skipped and reported, everyone else taken.
    const POISON = `uid=nul,${PEOPLE_DN}`;
    const POISON_REASON = 'user "nul": name must be well-formed Unicode without NUL (U+0000)';
    beforeAll(async () => {
      slapd = await startSlapd(COMPANY_LDIF);
      await (await slapd.admin()).add(POISON, { objectClass: 'inetOrgPerson', uid: 'nul', cn: 'Null\u0000Byte', sn: 'x' });
    });
    afterAll(async () => {
      await slapd?.stop();
    });

    it('--dry-run prints the change and writes nothing; the run writes it; a failure exits 1', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ch-sync-'));
      const env = cliEnv(`sqlite:${join(dir, 'collab-host.db')}`, ldapEnv(slapd.url));
      const dry = await runCli(['sync', 'ldap', '--dry-run'], { cwd: dir, env });
      expect(dry.stderr).toBe('');
      expect(dry.code).toBe(0);
      const lines = dry.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe('LDAP sync of team corp (read in full; 1 entry skipped, dry run): 48 created, 0 updated, 0 removed, 0 deactivated, 0 reactivated, 1 skipped');
      expect(lines).toContain(`  skipped ${POISON}: ${POISON_REASON}`);
      expect(lines).toContain('nothing written (--dry-run)');
      expect(dry.stdout).toMatch(/ {2}users created: .*lilei \(李雷\)/);
      expect(dry.stdout).toMatch(/ {2}departments created: .*\(数据库小组\)/);
      expect(dry.stdout).toContain('  teams created: corp (Example 公司)');

      const token = await runCli(['token', 'lilei'], { cwd: dir, env });
      expect(token.code).toBe(1);

      const real = await runCli(['sync', 'ldap'], { cwd: dir, env });
      expect(real.code).toBe(0);
      expect(real.stdout.split('\n')[0]).toBe('LDAP sync of team corp (read in full; 1 entry skipped): 48 created, 0 updated, 0 removed, 0 deactivated, 0 reactivated, 1 skipped');
      expect(real.stdout).toContain(`\n  skipped ${POISON}: ${POISON_REASON}\n`);
      expect((await runCli(['token', 'lilei'], { cwd: dir, env })).code).toBe(0);
      const again = await runCli(['sync', 'ldap', '--incremental'], { cwd: dir, env });
      expect(again.stdout).toMatch(/^LDAP sync of team corp: nothing read \(no entry changed since entryCSN .*\)\n$/);

      const wrong = await runCli(['sync', 'ldap'], { cwd: dir, env: { ...env, LDAP_BIND_PASSWORD: 'not-the-password' } });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/^LDAP sync of team corp failed \(run \d+\):\n {2}LDAP bind as cn=reader,dc=example,dc=com at ldap:\/\/127\.0\.0\.1:\d+ failed: /);
      expect(wrong.stderr).not.toContain('not-the-password');
    });

    it('serve runs the sync on LDAP_SYNC_INTERVAL and lists the runs at GET /api/sync/runs', async () => {
      const config = { ...configWithSync(ldapEnv(slapd.url, { LDAP_SYNC_INTERVAL: '1h' })), port: 0, databaseUrl: 'sqlite::memory:', adminApiKey: ADMIN_API_KEY, logLevel: 'warn' };
      const server = await startServer(config, { seedDemo: false });
      try {
        // The first run starts with the server.
        type Runs = { items: Array<{ status: string; changes: { users: { created: string[] } } }> };
        const runs = async () => (await (await fetch(`${server.address}/api/sync/runs?source=ldap`, { headers: { authorization: `Bearer ${ADMIN_API_KEY}` } })).json()) as Runs;
        await vi.waitFor(async () => expect((await runs()).items[0]?.status).toBe('ok'), { timeout: 20_000, interval: 100 });
        const [run] = (await runs()).items;
        expect(run).toMatchObject({
          source: 'ldap',
          mode: 'full',
          dryRun: false,
          detail: 'read in full; 1 entry skipped',
          counts: { created: 48, updated: 0, removed: 0, deactivated: 0, reactivated: 0, skipped: 1 },
          skipped: [{ dn: POISON, reason: POISON_REASON }],
          errors: [],
        });
        expect(run!.changes.users.created).toContain('lilei');
        const me = await fetch(`${server.address}/users/current/info`, { headers: { 'x-platform-token': mintUserToken('lilei', config.tokenSecret, 600) } });
        expect(await me.json()).toMatchObject({ id: 'lilei', name: '李雷' });
      } finally {
        await server.close();
      }
    });
  });
}
