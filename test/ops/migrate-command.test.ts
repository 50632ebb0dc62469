import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { dialects } from '../helpers/stores.js';
import { freshStore, markMigratedByNewerVersion } from './fresh-store.js';

for (const dialect of dialects) {
  describe(`collab-host migrate [${dialect}]`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-migrate-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('--status lists pending migrations; migrate applies them; serve with MIGRATE_ON_START=false refuses a database left behind', async () => {
      const fresh = await freshStore(dialect);
      try {
        const env = cliEnv(fresh.url, { PORT: '0', MIGRATE_ON_START: 'false', LOG_LEVEL: 'silent' });
        // Create the (empty) database without migrating it: the store opens without migrations.
        await (await fresh.open({ migrate: false })).close();

        const refused = await runCli(['serve'], { cwd: dir, env });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(
          /^collab-host: the database has \d+ pending migration\(s\) \(001-directory, .*\): run collab-host migrate first \(MIGRATE_ON_START=false\)\n$/,
        );

        const pending = await runCli(['migrate', '--status'], { cwd: dir, env });
        expect(pending.code).toBe(0);
        const pendingLines = pending.stdout.trim().split('\n');
        expect(pendingLines[0]).toMatch(/^database .*: 0 applied, \d+ pending$/);
        expect(pendingLines[1]).toBe('pending  001-directory');

        const applied = await runCli(['migrate'], { cwd: dir, env });
        expect(applied.code).toBe(0);
        expect(applied.stdout).toContain('applied  001-directory\n');
        expect(applied.stdout).toMatch(/is up to date\n$/);

        const status = await runCli(['migrate', '--status'], { cwd: dir, env });
        expect(status.stdout).toMatch(/^database .*: \d+ applied, 0 pending\napplied {2}001-directory {2}\d{4}-\d\d-\d\dT/);
        expect((await runCli(['migrate'], { cwd: dir, env })).stdout).toMatch(/^database .* is up to date\n$/);
      } finally {
        await fresh.drop();
      }
    });

    it('refuses a database migrated by a newer version, naming the migration; --status lists it', async () => {
      const fresh = await freshStore(dialect);
      try {
        const store = await fresh.open();
        await markMigratedByNewerVersion(store);
        await store.close();
        const env = cliEnv(fresh.url, { PORT: '0', LOG_LEVEL: 'silent' });
        for (const command of [['migrate'], ['serve']]) {
          const refused = await runCli(command, { cwd: dir, env });
          expect(refused.code, command[0]).toBe(1);
          expect(refused.stderr).toContain('the database was migrated by a newer version of collab-host: migration 099-from-a-newer-version unknown to this version');
        }
        const status = await runCli(['migrate', '--status'], { cwd: dir, env });
        expect(status.code).toBe(0);
        expect(status.stdout).toContain('unknown  099-from-a-newer-version  (migrated by a newer version of collab-host)\n');
      } finally {
        await fresh.drop();
      }
    });
  });
}

describe('collab-host migrate --help', { timeout: 60_000 }, () => {
  it('prints the usage and exits 0; an unknown option is a usage error (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-migrate-help-'));
    const env = cliEnv(`sqlite:${join(dir, 'unused.db')}`);
    try {
      const help = await runCli(['migrate', '--help'], { cwd: dir, env });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: collab-host migrate \[--status\]/);
      const wrong = await runCli(['migrate', '--stauts'], { cwd: dir, env });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/^Unknown option '--stauts'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
