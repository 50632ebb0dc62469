import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/connection/database.js';
import { WalCheckpointer } from '../../src/store/sqlite/wal-checkpointer.js';

/**
 * An SQLite file's write-ahead log is copied into the database file by a thread of its own
 * (src/store/sqlite/wal-checkpointer.ts), not by the commit that fills it on the main thread.
 */
describe('the write-ahead log checkpoint thread', () => {
  const work = mkdtempSync(join(tmpdir(), 'collab-checkpoint-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('copies every committed page into the database file, readable by a new connection after the log is gone', async () => {
    const path = join(work, 'store.db');
    const store = await openDatabase(`sqlite:${path}`);
    expect(store.walCheckpointer).toBeInstanceOf(WalCheckpointer);
    await sql`CREATE TABLE pages (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`.execute(store.db);
    const before = statSync(path).size;
    // 400 commits of 8 KB: a few thousand pages of log, past SQLite's default threshold of 1,000.
    for (let commit = 0; commit < 400; commit += 1) {
      await store.db.transaction().execute((trx) => sql`INSERT INTO pages (body) VALUES (${'x'.repeat(8192)})`.execute(trx));
    }
    const result = await store.walCheckpointer!.checkpoint();
    expect(result.log).toBeGreaterThan(1000);
    expect(result.checkpointed).toBe(result.log);
    expect(statSync(path).size).toBeGreaterThan(before + 400 * 8192);
    await store.close();
    await expect(store.walCheckpointer!.checkpoint()).rejects.toThrow('closed');
    // The log is gone with the last connection: the rows are in the database file itself.
    rmSync(`${path}-wal`, { force: true });
    const again = await openDatabase(`sqlite:${path}`);
    try {
      const { rows } = await sql<{ count: number }>`SELECT count(*) AS count FROM pages`.execute(again.db);
      expect(rows[0]!.count).toBe(400);
    } finally {
      await again.close();
    }
  });

  it('refuses checkpoints once its thread has stopped (a file it cannot open), and closes all the same', async () => {
    const checkpointer = new WalCheckpointer(join(work, 'missing-dir', 'nothing.db'));
    await expect(checkpointer.checkpoint()).rejects.toThrow('Cannot open database');
    await expect(checkpointer.checkpoint()).rejects.toThrow('Cannot open database');
    await checkpointer.close();
    await expect(checkpointer.checkpoint()).rejects.toThrow('closed');
  });
});
