import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { bulkInsert } from '../../src/store/statements/bulk-insert.js';
import { eventEffects } from '../../src/store/events/event-effects.js';
import { mysqlDialectWork } from '../../src/store/mysql/dialect-work.js';
import { mysqlEventEffects } from '../../src/store/mysql/event-effects.js';
import { withFeedAsReload } from '../../src/store/mysql/feed-as-reload.js';
import type { Database } from '../../src/store/schema/schema.js';
import { dialects, mysqlUrl, openTestStore } from '../helpers/stores.js';

/** The tables and columns a store ends with, as `table.column`, leaving out what one dialect keeps for itself. */
async function columnsOf(store: OpenDatabase): Promise<string[]> {
  const db = store.db as unknown as Kysely<unknown>;
  const query = {
    sqlite: sql<{
      line: string;
    }>`SELECT m.name || '.' || p.name AS line FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
    postgres: sql<{ line: string }>`SELECT table_name || '.' || column_name AS line FROM information_schema.columns WHERE table_schema = current_schema()`,
    mysql: sql<{
      line: string;
    }>`SELECT CONCAT(table_name, '.', column_name) AS line FROM information_schema.columns WHERE table_schema = DATABASE() AND extra NOT LIKE '%INVISIBLE%'`,
  }[store.dialect];
  const { rows } = await query.execute(db);
  // PostgreSQL's transaction ids (migrations 110, 150) and MySQL's feed counter and tail turn are each their own dialect's way of ordering.
  return rows
    .map((row) => row.line)
    .filter((line) => !/^kysely_migration|\.(tail_)?xid$|^(directory_changes_seq|tail_turns)\./.test(line))
    .sort();
}

describe.runIf(dialects.length > 1)('every store', () => {
  it('has the same tables and columns after every migration, whichever the dialect', async () => {
    const shapes = new Map<DialectName, string[]>();
    for (const dialect of dialects) {
      const store = await openTestStore(dialect);
      try {
        shapes.set(dialect, await columnsOf(store));
      } finally {
        await store.close();
      }
    }
    const sqlite = shapes.get('sqlite')!;
    expect(sqlite).toContain('users.name');
    for (const [, shape] of shapes) expect(shape).toEqual(sqlite);
  });
});

describe.runIf(mysqlUrl)('MySQL store [mysql]', () => {
  const withStore = async (work: (db: Kysely<unknown>) => Promise<void>) => {
    const store = await openTestStore('mysql');
    try {
      await work(store.db as unknown as Kysely<unknown>);
    } finally {
      await store.close();
    }
  };

  it('keeps Chinese names and emoji, orders names by code point, and tells "a" from "a "', async () => {
    await withStore(async (db) => {
      const names = ['zed', 'Zed', 'émile', '张三', '李四', '😀 smile', 'a', 'a '];
      for (const [index, name] of names.entries()) {
        await sql`INSERT INTO users (id, name, team_id) VALUES (${`u${index}`}, ${name}, 't1')`.execute(db);
      }
      const { rows } = await sql<{ name: string }>`SELECT name FROM users ORDER BY name`.execute(db);
      const byCodePoint = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(rows.map((row) => row.name)).toEqual(byCodePoint);
      const { rows: exact } = await sql<{ id: string }>`SELECT id FROM users WHERE name = 'a'`.execute(db);
      expect(exact.map((row) => row.id)).toEqual(['u6']);
      // Two ids that differ only by a trailing space are two keys.
      await sql`INSERT INTO teams (id, name) VALUES ('t', 'one'), ('t ', 'two')`.execute(db);
      const { rows: teams } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM teams`.execute(db);
      expect(teams[0]!.n).toBe(2);
    });
  });

  it('returns counts, sums and 64-bit columns as numbers', async () => {
    await withStore(async (db) => {
      await sql`INSERT INTO console_sessions (id, created_at, expires_ms) VALUES ('s1', 'now', 1893456000000), ('s2', 'now', 1893456000001)`.execute(db);
      const { rows } = await sql<{ n: unknown; total: unknown; latest: unknown }>`
        SELECT COUNT(*) AS n, SUM(expires_ms) AS total, MAX(expires_ms) AS latest FROM console_sessions`.execute(db);
      expect(rows[0]).toEqual({ n: 2, total: 3786912000001, latest: 1893456000001 });
    });
  });

  it('records every directory write made by plain SQL in the change feed, ids in commit order, and raises the versions', async () => {
    await withStore(async (db) => {
      const versions = async () =>
        Object.fromEntries((await sql<{ area: string; version: number }>`SELECT area, version FROM directory_versions`.execute(db)).rows.map((row) => [row.area, row.version]));
      const feed = async () => (await sql<{ id: number; subject: string; key: string }>`SELECT id, subject, "key" FROM directory_changes ORDER BY id`.execute(db)).rows;
      const start = await versions();

      await sql`INSERT INTO teams (id, name) VALUES ('t1', 'Acme')`.execute(db);
      await sql`INSERT INTO users (id, name, team_id) VALUES ('u1', 'Ann', 't1'), ('u2', 'Bob', 't1')`.execute(db);
      await sql`INSERT INTO files (id, name, type, creator_id, created_at, updated_at) VALUES ('f1', 'Plan', 'doc', 'u1', 'x', 'x')`.execute(db);
      await sql`INSERT INTO file_grants (file_id, principal_kind, principal_id, role_rank) VALUES ('f1', 'user', 'u2', 1)`.execute(db);
      await sql`INSERT INTO file_contents (file_id, content_type, content, size) VALUES ('f1', 'text/plain', ${Buffer.from('hi')}, 2)`.execute(db);
      await sql`UPDATE users SET id = 'u3' WHERE id = 'u2'`.execute(db);
      await sql`DELETE FROM users WHERE id = 'u1'`.execute(db);

      const rows = await feed();
      expect(rows.map(({ subject, key }) => `${subject}:${key}`)).toEqual(['team:t1', 'file:f1', 'grants:f1', 'content:f1', 'user:u3', 'user:u2', 'user:u1']);
      expect(rows.map((row) => row.id)).toEqual([...rows.map((row) => row.id)].sort((a, b) => a - b));
      const after = await versions();
      expect(after.people).toBe(start.people! + 5);
      expect(after.files).toBe(start.files! + 1);
      expect(after.grants).toBe(start.grants! + 1);

      // A file's views and version move with every FileContent event: the feed names the file, the files version stays.
      const last = rows.at(-1)!.id;
      await sql`UPDATE files SET views = 3, version = 2 WHERE id = 'f1'`.execute(db);
      expect((await versions()).files).toBe(after.files);
      expect((await feed()).filter((row) => row.id > last).map(({ subject, key }) => `${subject}:${key}`)).toEqual(['file:f1']);
      await sql`UPDATE files SET name = 'Plan B' WHERE id = 'f1'`.execute(db);
      expect((await versions()).files).toBe(after.files! + 1);
    });
  });

  it('holds one activity row per event, but any number of mentions of it', async () => {
    await withStore(async (db) => {
      const add = (related: string | null) =>
        sql`INSERT IGNORE INTO activity (user_id, file_id, related_user_id, kind, occurred_at, event_id) VALUES ('u1', 'f1', ${related}, 'edit', 'x', 7)`.execute(db);
      await add(null);
      await add(null);
      await add('u2');
      await add('u3');
      const { rows } = await sql<{ related_user_id: string | null }>`SELECT * FROM activity ORDER BY related_user_id`.execute(db);
      expect(rows.map((row) => row.related_user_id)).toEqual([null, 'u2', 'u3']);
      expect(Object.keys(rows[0]!)).not.toContain('once_event_id');
    });
  });

  it('locks keys for the rest of a transaction: another takes only the free ones, and every key is free again after it', async () => {
    const store = await openTestStore('mysql');
    const db = store.db as Kysely<Database>;
    const looksFree = async (key: string) =>
      Boolean((await db.selectNoFrom(sql<number>`${mysqlDialectWork.keyLooksFree(sql.lit(key))}`.as('free')).executeTakeFirstOrThrow()).free);
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let taken!: () => void;
      const tookThem = new Promise<void>((resolve) => (taken = resolve));
      const first = db.transaction().execute(async (trx) => {
        expect([...(await mysqlDialectWork.lockKeys(trx, ['file:1', 'file:2']))].sort()).toEqual(['file:1', 'file:2']);
        taken();
        await held;
      });
      await tookThem;
      expect(await looksFree('file:1')).toBe(false);
      expect(await looksFree('file:3')).toBe(true);
      await db.transaction().execute(async (trx) => {
        expect([...(await mysqlDialectWork.lockKeys(trx, ['file:2', 'file:3']))]).toEqual(['file:3']);
      });
      release();
      await first;
      expect(await looksFree('file:1')).toBe(true);
      await db.transaction().execute(async (trx) => {
        expect((await mysqlDialectWork.lockKeys(trx, ['file:1', 'file:2', 'file:3'])).size).toBe(3);
      });
    } finally {
      await store.close();
    }
  });

  it('inserts rows in bulk and upserts them on their key; file versions only move forward', async () => {
    const store = await openTestStore('mysql');
    const db = store.db as Kysely<Database>;
    try {
      const spec = {
        table: 'file_grants' as const,
        columns: ['file_id', 'principal_kind', 'principal_id', 'role_rank'],
        pgTypes: ['text', 'text', 'text', 'integer'],
        conflictKey: ['file_id', 'principal_kind', 'principal_id'],
      };
      await bulkInsert(db, spec, [
        ['f1', 'user', 'u1', 1],
        ['f1', 'user', '用户😀', 2],
      ]);
      await bulkInsert(db, spec, [['f1', 'user', 'u1', 3]]);
      const grants = await db.selectFrom('file_grants').select(['principal_id', 'role_rank']).orderBy('principal_id').execute();
      expect(grants).toEqual([
        { principal_id: 'u1', role_rank: 3 },
        { principal_id: '用户😀', role_rank: 2 },
      ]);

      await sql`INSERT INTO files (id, name, type, creator_id, created_at, updated_at, version) VALUES ('f1', 'Plan', 'doc', 'u1', 'x', '2026-01-01', 1)`.execute(db);
      await mysqlEventEffects.advanceFileVersions(db, [{ fileId: 'f1', version: 3, updatedAt: '2026-02-01' }]);
      await mysqlEventEffects.advanceFileVersions(db, [{ fileId: 'f1', version: 2, updatedAt: '2026-03-01' }]);
      expect(await db.selectFrom('files').select(['version', 'updated_at']).executeTakeFirst()).toEqual({ version: 3, updated_at: '2026-02-01' });
    } finally {
      await store.close();
    }
  });

  it('a rewrite of the directory leaves the feed as one "all" row above every id, and later writes are recorded again', async () => {
    const store = await openTestStore('mysql');
    const db = store.db as Kysely<Database>;
    const feed = async () => (await sql<{ id: number; subject: string; key: string }>`SELECT id, subject, "key" FROM directory_changes ORDER BY id`.execute(db)).rows;
    try {
      await sql`INSERT INTO teams (id, name) VALUES ('t1', 'Acme')`.execute(db);
      const [before] = await feed();
      await db.transaction().execute((trx) =>
        withFeedAsReload(trx, [], async () => {
          await sql`INSERT INTO users (id, name, team_id) VALUES ('u1', 'Ann', 't1'), ('u2', 'Bob', 't1')`.execute(trx);
        }),
      );
      const reloaded = await feed();
      expect(reloaded.map(({ subject, key }) => `${subject}:${key}`)).toEqual(['all:']);
      expect(reloaded[0]!.id).toBeGreaterThan(before!.id);
      await sql`UPDATE users SET name = 'Anne' WHERE id = 'u1'`.execute(db);
      expect((await feed()).map(({ subject, key }) => `${subject}:${key}`)).toEqual(['all:', 'user:u1']);
    } finally {
      await store.close();
    }
  });

  it('presence and callback failures: an older event never undoes a newer one, and an event counts once', async () => {
    const store = await openTestStore('mysql');
    const db = store.db as Kysely<Database>;
    try {
      const put = (present: boolean, atMs: number) => eventEffects.applyPresence(db, [{ fileId: 'f1', userId: 'u1', clientId: 'c1', present, atMs }]);
      const presence = () => db.selectFrom('presence').select(['present', 'since', 'changed_ms']).executeTakeFirst();
      await put(true, 100_000);
      await put(true, 200_000); // still present: since stays
      expect(await presence()).toMatchObject({ present: 1, changed_ms: 200_000 });
      const since = (await presence())!.since;
      await put(false, 150_000); // older than what is known: ignored
      expect(await presence()).toEqual({ present: 1, since, changed_ms: 200_000 });
      await put(false, 300_000);
      expect(await presence()).toMatchObject({ present: 0, changed_ms: 300_000 });
      expect((await presence())!.since).not.toBe(since);

      for (const eventId of [5, 5, 4, 6]) {
        await eventEffects.countCallbackFailure(db, { url: 'https://cb.example.com/x', status: 500, at: `t${eventId}`, error: `e${eventId}` }, eventId);
      }
      expect(await db.selectFrom('callback_failures').select(['count', 'last_seen_at', 'last_event_id']).executeTakeFirst()).toEqual({
        count: 2,
        last_seen_at: 't6',
        last_event_id: 6,
      });
    } finally {
      await store.close();
    }
  });
});
