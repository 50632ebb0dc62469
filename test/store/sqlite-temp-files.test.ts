import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A statement changing many rows inside a transaction keeps a statement journal (the rows as they were,
 * should the statement fail half-way). SQLite spills one past 64 KiB to a temporary file, created, written
 * page by page and deleted each time: under the event processor's batches that was thousands of writes a
 * second on the main thread. The store keeps SQLite's temporary files in memory (src/store/sqlite/open.ts).
 * SQLite reads SQLITE_TMPDIR when the process starts, so the statement runs in a child process of its own.
 */
describe('SQLite temporary files', () => {
  const work = mkdtempSync(join(tmpdir(), 'collab-temp-files-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /**
   * Whether SQLite made (and deleted) a temporary file while `script` ran: the directory's modification
   * time moves with every file made or removed in it, the files themselves are gone by then.
   */
  async function madeTemporaryFiles(script: string): Promise<boolean> {
    const temporary = join(work, `tmp-${Math.random().toString(36).slice(2)}`);
    mkdirSync(temporary);
    const before = statSync(temporary, { bigint: true }).mtimeNs;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, SQLITE_TMPDIR: temporary },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(output.trim(), output).toBe('updated 20000');
    expect(code).toBe(0);
    return statSync(temporary, { bigint: true }).mtimeNs !== before;
  }

  it('a large statement in a transaction writes no temporary file', async () => {
    const database = join(work, 'store.db');
    const script = `
      import { sql } from 'kysely';
      import { openDatabase } from './src/store/connection/database.ts';
      const store = await openDatabase('sqlite:${database}');
      await sql\`CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT NOT NULL)\`.execute(store.db);
      await sql\`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO big SELECT i, printf('%0100d', i) FROM n\`.execute(store.db);
      const updated = await store.db.transaction().execute((trx) => sql\`UPDATE big SET v = v || 'x' WHERE id <= 20000\`.execute(trx));
      console.log('updated', String(updated.numAffectedRows));
      await store.close();
    `;
    expect(await madeTemporaryFiles(script)).toBe(false);
  });
});
