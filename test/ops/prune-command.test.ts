import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { commandDatabase, dialects } from '../helpers/stores.js';
import { remainingRows, seedRetentionRows } from './retention-fixture.js';

for (const dialect of dialects) {
  describe(`collab-host prune [${dialect}]`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-prune-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('--dry-run prints what would go and changes nothing; prune removes it and prints what it removed', async () => {
      // The command runs on the real clock: the fixture's rows are days away from every window's edge.
      const database = await commandDatabase(dialect, dir, (store) => seedRetentionRows(store, Date.now()));
      try {
        const env = cliEnv(database.url, { ACTIVITY_RETENTION_DAYS: '0' });
        const rowsBefore = await withStore(database.open, remainingRows);

        const dry = await runCli(['prune', '--dry-run'], { cwd: dir, env });
        expect(dry.stderr).toBe('');
        expect(dry.code).toBe(0);
        expect(dry.stdout).toBe(
          [
            'dry run, nothing changed',
            'events:                  3 would be removed (older than 90 days)',
            'notifications:           2 would be removed (older than 30 days)',
            'notification_deliveries: 3 would be removed (older than 30 days)',
            'activity:                kept forever (ACTIVITY_RETENTION_DAYS=0)',
            'presence:                2 would be removed (older than 24 hours)',
            'audit_log:               1 would be removed (older than 365 days)',
            '',
          ].join('\n'),
        );
        expect(await withStore(database.open, remainingRows)).toEqual(rowsBefore);

        const pruned = await runCli(['prune'], { cwd: dir, env });
        expect(pruned.code).toBe(0);
        expect(pruned.stdout.split('\n').slice(0, 2)).toEqual([
          'events:                  3 removed (older than 90 days)',
          'notifications:           2 removed (older than 30 days)',
        ]);
        const after = await withStore(database.open, remainingRows);
        expect(after.events).toEqual(['inside-window', 'old-about-scheduled-reminder', 'old-pending', 'recent']);
        expect(after.activity).toHaveLength(5);

        const again = await runCli(['prune'], { cwd: dir, env });
        expect(again.stdout).toContain('events:                  0 removed');
      } finally {
        await database.drop();
      }
    });
  });
}

describe('collab-host prune --help', { timeout: 60_000 }, () => {
  it('prints the usage and exits 0; an unknown option is a usage error (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-prune-help-'));
    const env = cliEnv(`sqlite:${join(dir, 'unused.db')}`);
    try {
      const help = await runCli(['prune', '--help'], { cwd: dir, env });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: collab-host prune \[--dry-run\]/);
      const wrong = await runCli(['prune', '--dryrun'], { cwd: dir, env });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/^Unknown option '--dryrun'/);
      const bad = await runCli(['prune'], { cwd: dir, env: { ...env, EVENTS_RETENTION_DAYS: 'ninety' } });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toBe('EVENTS_RETENTION_DAYS must be a whole number from 0 to 36500\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function withStore<T>(open: () => Promise<OpenDatabase>, read: (store: OpenDatabase) => Promise<T>): Promise<T> {
  const store = await open();
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}
