import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { feedEnd, inSnapshot, readFeed, type FeedPosition } from '../../src/store/change-feed/directory-change-feed.js';
import { openDatabase } from '../../src/store/connection/database.js';
import { replaceGrants, upsertFiles, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { createTestSchema, describeEachStore, mysqlUrl, openTestStore, postgresUrl } from '../helpers/stores.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';

async function read(store: OpenDatabase, position: FeedPosition) {
  return inSnapshot(store.db, (trx) => readFeed(trx, position, 1000));
}

const keys = (changes: Array<{ subject: string; key: string }>) => changes.map((c) => `${c.subject}:${c.key}`).sort();

describeEachStore('directory change feed', (store) => {
  it('names every written key once, whoever writes, and a read after the last one finds nothing', async () => {
    const { db } = store();
    const start = await inSnapshot(db, feedEnd);
    await upsertTeams(db, [{ id: 't1', name: 'Acme' }]);
    await upsertUsers(db, [
      { id: 'u1', name: 'Ann', email: null, avatar: null, teamId: 't1', watermark: null, departmentIds: [] },
      { id: 'u2', name: 'Bob', email: null, avatar: null, teamId: 't1', watermark: null, departmentIds: [] },
    ]);
    await upsertFiles(db, [
      {
        id: 'f1',
        name: 'Plan',
        type: 'doc',
        creatorId: 'u1',
        teamId: 't1',
        createdAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-01T00:00:00Z',
        views: null,
        ext: null,
        downloadUrl: null,
        fullUrl: null,
        restrictions: { copy: true, export: true },
        status: 'active',
      },
    ]);
    await replaceGrants(db, ['f1'], [{ fileId: 'f1', principalKind: 'user', principalId: 'u2', role: 'editor' }]);
    // A DBA's statements, outside every collab-host write path.
    await sql`UPDATE users SET name = 'Bobby' WHERE id = 'u2'`.execute(db);
    await sql`INSERT INTO user_departments (user_id, department_id) VALUES ('u1', 'd9')`.execute(db);
    const first = await read(store(), start);
    expect(keys(first.changes)).toEqual(['file:f1', 'grants:f1', 'membership:u1', 'team:t1', 'user:u1', 'user:u2']);
    expect(first.overflow).toBe(false);
    expect((await read(store(), first.position)).changes).toEqual([]);

    await sql`DELETE FROM file_grants WHERE file_id = 'f1'`.execute(db);
    const second = await read(store(), first.position);
    expect(keys(second.changes)).toEqual(['grants:f1']);
  });

  it('more changes than the limit: overflow, and the position is the end of the feed', async () => {
    const { db } = store();
    const start = await inSnapshot(db, feedEnd);
    await upsertTeams(db, [
      { id: 'o1', name: 'One' },
      { id: 'o2', name: 'Two' },
      { id: 'o3', name: 'Three' },
    ]);
    const found = await inSnapshot(db, (trx) => readFeed(trx, start, 2));
    expect(found.overflow).toBe(true);
    expect((await read(store(), found.position)).changes).toEqual([]);
  });
});

describe.runIf(postgresUrl)('directory change feed [postgres, concurrent writers]', () => {
  it('a change that commits after a higher id is read once it commits, not skipped', async () => {
    const { schema, drop } = await createTestSchema();
    const store = await openDatabase(postgresUrl!, { schema });
    const early = new pg.Client({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
    await early.connect();
    try {
      const start = await inSnapshot(store.db, feedEnd);
      // `early` takes the lower feed id and commits last.
      await early.query('BEGIN');
      // (file_contents: no version row of migration 070 to wait on, so the other write goes ahead.)
      await early.query(`INSERT INTO file_contents (file_id, content_type, content, size) VALUES ('late', 'text/plain', '\\x00', 1)`);
      await upsertTeams(store.db, [{ id: 'quick', name: 'Quick' }]);
      const first = await read(store, start);
      expect(keys(first.changes)).toEqual(['team:quick']);
      await early.query('COMMIT');
      const second = await read(store, first.position);
      expect(keys(second.changes)).toEqual(['content:late']);
      const third = await read(store, second.position);
      expect(third.changes).toEqual([]);
    } finally {
      await early.end();
      await store.close();
      await drop();
    }
  });
});

describe.runIf(mysqlUrl)('directory change feed [mysql, concurrent writers]', () => {
  it('a write that takes a feed id waits for the transaction holding the one before it: ids commit in order', async () => {
    const store = await openTestStore('mysql');
    try {
      const start = await inSnapshot(store.db, feedEnd);
      let commitEarly!: () => void;
      const early = store.db.transaction().execute(async (trx) => {
        await sql`INSERT INTO file_contents (file_id, content_type, content, size) VALUES ('late', 'text/plain', ${Buffer.from([0])}, 1)`.execute(trx);
        await new Promise<void>((resolve) => (commitEarly = resolve));
      });
      while (!commitEarly) await new Promise((resolve) => setImmediate(resolve));
      // The feed row of `early` holds the counter: this write waits for it instead of committing a higher id first.
      const quick = upsertTeams(store.db, [{ id: 'quick', name: 'Quick' }]);
      const first = await read(store, start);
      expect(first.changes).toEqual([]);
      commitEarly();
      await early;
      await quick;
      const second = await read(store, first.position);
      expect(second.changes.map((c) => `${c.subject}:${c.key}`)).toEqual(['content:late', 'team:quick']);
      expect((await read(store, second.position)).changes).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
