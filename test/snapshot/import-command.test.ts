import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SNAPSHOT_PATH } from '../../src/composition/demo-data.js';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { cliEnv, progressSummary, runCli } from '../cli/run-cli.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { commandDatabase, dialects } from '../helpers/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'ch-import-'));

function snapshotFile(name: string, snapshot: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(snapshot));
  return path;
}

// Each command is a fresh Node process compiling TypeScript through tsx: seconds each on two busy cores.
for (const dialect of dialects) {
  describe(`collab-host import --dry-run and --allow-empty [${dialect}]`, { timeout: 180_000 }, () => {
    let database: Awaited<ReturnType<typeof commandDatabase>>;
    const cli = (...args: string[]) => runCli(['import', ...args], { cwd: dir, env: cliEnv(database.url) });
    const exported = async () => {
      const store = await database.open();
      try {
        return await exportSnapshot(store.db);
      } finally {
        await store.close();
      }
    };

    beforeAll(async () => {
      database = await commandDatabase(dialect, dir, (store) => seedDirectory(store.db));
    });
    afterAll(async () => {
      await database.drop();
    });

    it('--dry-run prints what a replace would change and writes nothing', async () => {
      const before = await exported();
      const run = await cli(DEMO_SNAPSHOT_PATH, '--replace', '--dry-run');
      expect(run).toMatchObject({ code: 0, stderr: expect.stringMatching(progressSummary('import', 'checked, nothing written')) });
      const lines = run.stdout.split('\n');
      expect(lines[0]).toBe('dry run, nothing written: the import would replace the directory with 1 team, 12 departments, 24 users, 10 files (20 grants, 1 stored content)');
      expect(lines).toContain('  teams: 1 created (galaxy), 2 removed (acme, other)');
      expect(lines).toContain('  departments: 7 created (mobile, infra, product, design, sales-north, sales-intl, hr), 5 updated (rd, fe, web, be, sales), 1 removed (ops)');
      expect(lines).toContain(
        '  users: 21 created (zhangsan, lisi, wangwu, zhaoliu, sunqi, zhouba, wujiu, zhengshi, chenjing, linfang, … 11 more), 3 updated (alice, bob, carol), 6 removed (hanmeimei, lilei, olga, outsider, wang, zhang)',
      );
      expect(lines).toContain('  deactivated users: 6 (hanmeimei, lilei, olga, outsider, wang, zhang)');
      expect(await exported()).toEqual(before);
    });

    it("refuses a replace that removes every team, or an import that moves a team's last active user away, unless --allow-empty; never a leaver", async () => {
      const before = await exported();
      const empty = snapshotFile('empty.json', {});
      const wipe = await cli(empty, '--replace');
      expect(wipe).toMatchObject({ code: 1, stdout: '' });
      expect(wipe.stderr).toBe('import refused (directory_would_be_empty), nothing written:\n  $: removes every team (there were 2)\npass --allow-empty to import it anyway\n');

      const mover = snapshotFile('mover.json', { users: [{ id: 'olga', name: 'Olga Petrova', teamId: 'acme', departmentIds: [] }] });
      const refused = await cli(mover);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('  $: leaves team "other" with no active users (it had 1)\n');
      expect(await exported()).toEqual(before);

      // Deactivating the team's last active user is a leaver leaving: written without --allow-empty.
      const leaver = snapshotFile('leaver.json', { users: [{ id: 'olga', name: 'Olga Petrova', teamId: 'other', departmentIds: ['ops'], active: false }] });
      const allowed = await cli(leaver);
      expect(allowed).toMatchObject({ code: 0, stderr: expect.stringMatching(progressSummary('import', 'written')) });
      // --quiet: the result on stdout, nothing on stderr.
      const quiet = await cli(DEMO_SNAPSHOT_PATH, '--replace', '--dry-run', '--quiet');
      expect(quiet).toMatchObject({ code: 0, stderr: '' });
      expect(quiet.stdout).toMatch(/^dry run, nothing written: /);
      expect(allowed.stdout).toBe(
        [
          'upserted 0 teams, 0 departments, 1 user, 0 files (0 grants, 0 stored contents)',
          '  teams: no change',
          '  departments: no change',
          '  users: 1 updated (olga)',
          '  files: no change',
          '  deactivated users: 1 (olga)',
          '',
        ].join('\n'),
      );

      const wiped = await cli(empty, '--replace', '--allow-empty');
      expect(wiped.code).toBe(0);
      expect(await exported()).toEqual({ teams: [], departments: [], users: [], files: [] });
    });
  });
}

describe('collab-host import arguments', { timeout: 60_000 }, () => {
  const cli = (...args: string[]) => runCli(['import', ...args], { cwd: dir, env: cliEnv(`sqlite:${join(dir, 'unused.db')}`) });

  it('prints its usage for --help (exit 0) and answers usage errors with exit 2', async () => {
    const help = await cli('--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: collab-host import FILE \[--replace\] \[--dry-run\] \[--allow-empty\] \[--quiet\]\n/);
    for (const args of [[], ['a.json', 'b.json'], ['a.json', '--dry']]) {
      const run = await cli(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/\nusage: collab-host import FILE/);
    }
  });
});
