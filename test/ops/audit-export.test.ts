import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLog, type AuditRecord } from '../../src/store/audit/audit-log.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { commandDatabase, dialects } from '../helpers/stores.js';

const entry = (at: string, actorId: string): AuditRecord => ({
  at,
  kind: 'file_access',
  actorId,
  credential: 'user_token',
  fileId: 'plan',
  action: 'GET /files/:fileId',
  permissions: ['readable'],
  details: null,
});

for (const dialect of dialects) {
  describe(`collab-host audit export [${dialect}]`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-audit-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes the entries from --since to --until as NDJSON, one parseable entry per line, oldest first', async () => {
      // More entries than one page of the export (1000): the pages join without a gap or a repeat.
      const many = Array.from({ length: 1200 }, (_, i) => entry(`2026-02-01T00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`, `bulk-${i}`));
      const database = await commandDatabase(dialect, dir, (store) =>
        auditLog.append(store.db, [entry('2026-01-01T00:00:00Z', 'too-early'), ...many, entry('2026-03-01T00:00:00Z', 'too-late')]),
      );
      try {
        const env = cliEnv(database.url);
        const run = await runCli(['audit', 'export', '--since', '2026-02-01', '--until', '2026-02-15T00:00:00Z'], { cwd: dir, env });
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        const lines = run.stdout.split('\n');
        expect(lines.pop()).toBe('');
        const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(parsed).toHaveLength(1200);
        expect(parsed.map((item) => item.actorId)).toEqual(many.map((item) => item.actorId));
        expect(parsed[0]).toEqual({ id: expect.any(Number), ...many[0] });

        const open = await runCli(['audit', 'export', '--since', '2026-02-20'], { cwd: dir, env });
        expect(
          open.stdout
            .trim()
            .split('\n')
            .map((line) => (JSON.parse(line) as { actorId: string }).actorId),
        ).toEqual(['too-late']);
      } finally {
        await database.drop();
      }
    });
  });
}

describe('collab-host audit usage', { timeout: 60_000 }, () => {
  it('--help prints the usage; a missing --since or a bad time is a usage error (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-audit-help-'));
    const env = cliEnv(`sqlite:${join(dir, 'unused.db')}`);
    try {
      const help = await runCli(['audit', '--help'], { cwd: dir, env });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: collab-host audit export --since TIME \[--until TIME\]/);
      for (const [args, message] of [
        [['audit', 'export'], 'export needs --since'],
        [['audit', 'export', '--since', 'yesterday'], '--since must be a time such as 2026-01-31 or 2026-01-31T08:00:00Z'],
        [['audit', 'import', '--since', '2026-01-01'], 'unknown subcommand "import"'],
      ] as const) {
        const run = await runCli([...args], { cwd: dir, env });
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr.split('\n')[0]).toBe(message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
