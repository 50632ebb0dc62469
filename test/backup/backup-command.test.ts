import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedStorageFixture } from '../storage/storage-fixture.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { commandDatabase, dialects } from '../helpers/stores.js';

// Each command is a fresh Node process compiling TypeScript through tsx: seconds each on two busy cores.
for (const dialect of dialects) {
  describe(`collab-host backup and restore [${dialect}]`, { timeout: 300_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-backup-cli-'));
    const drops: Array<() => Promise<void>> = [];
    afterAll(async () => {
      for (const drop of drops) await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('backs up a store, restores it into an empty one, and refuses a damaged backup with one line, exit 1', async () => {
      const source = await commandDatabase(dialect, dir, seedStorageFixture);
      const target = await commandDatabase(dialect, dir, async () => {});
      drops.push(source.drop, target.drop);
      const out = join(dir, 'backup');

      const backup = await runCli(['backup', '--out', out], { cwd: dir, env: cliEnv(source.url) });
      expect(backup.stderr).toMatch(new RegExp(`^wrote ${out}: \\d+ tables, \\d+ rows, 1 file contents \\(\\d+ bytes\\) as of \\S+Z\\n$`));
      expect(backup.code).toBe(0);

      const restore = await runCli(['restore', out], { cwd: dir, env: cliEnv(target.url) });
      expect(restore.stderr).toMatch(new RegExp(`^restored ${out} \\(taken \\S+Z by collab-host \\S+ on ${dialect}\\) into .*: \\d+ tables, \\d+ rows, 1 file contents\\n$`));
      expect(restore.code).toBe(0);
      const [before, after] = [await source.open(), await target.open()];
      try {
        const users = (store: typeof before) => store.db.selectFrom('users').selectAll().orderBy('id').execute();
        expect(await users(after)).toEqual(await users(before));
        expect((await users(after)).length).toBeGreaterThan(3);
      } finally {
        await before.close();
        await after.close();
      }

      appendFileSync(join(out, 'tables', 'users.ndjson'), '\n{"id":"intruder"}\n');
      const damaged = await runCli(['restore', out, '--replace'], { cwd: dir, env: cliEnv(target.url) });
      expect(damaged).toMatchObject({ code: 1, stdout: '' });
      expect(damaged.stderr).toBe(`restore: backup ${out} is damaged: tables/users.ndjson (table users) does not match its SHA-256 in the manifest; nothing was restored\n`);
    });
  });
}
