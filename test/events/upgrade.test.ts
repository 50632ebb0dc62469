import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { columnTypes } from '../../src/store/schema/migrations/column-types.js';
import { allMigrations } from '../../src/store/schema/migrations/index.js';
import { mysqlKyselyDialect } from '../../src/store/mysql/kysely-dialect.js';
import { createMysqlPool } from '../../src/store/mysql/pool.js';
import { mysqlBinaryCollation } from '../../src/store/mysql/server.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { createTestDatabase, createTestSchema, dialects, postgresUrl } from '../helpers/stores.js';
import { ADMIN_KEY, admin, buildEventApp, commentCreate } from './event-fixtures.js';

/** Migrates up to 007; tries again when another run's schema vanished under Kysely's table look-up. */
async function migrateTo007(migrator: Migrator): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const { error } = await migrator.migrateTo('007-users-active');
    if (!error) return;
    if (attempt >= 3 || (error as { code?: string }).code !== '3F000') throw error;
  }
}

/** A database left by the version before the event pipeline (migrations up to 007), as a URL the command can open too. */
async function databaseAt007(dialect: DialectName): Promise<{ url: string; raw: Kysely<unknown>; open: () => Promise<OpenDatabase>; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'collab-upgrade-'));
    const path = join(dir, 'store.db');
    const raw = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SQLite(path) }) });
    await migrateTo007(new Migrator({ db: raw, provider: { getMigrations: async () => allMigrations(columnTypes('sqlite')) } }));
    return { url: `sqlite:${path}`, raw, open: () => openDatabase(`sqlite:${path}`), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (dialect === 'mysql') {
    const { url, drop } = await createTestDatabase();
    const raw = new Kysely<unknown>({ dialect: mysqlKyselyDialect(createMysqlPool(url, { poolSize: 2 })) });
    await migrateTo007(new Migrator({ db: raw, provider: { getMigrations: async () => allMigrations(columnTypes('mysql', await mysqlBinaryCollation(raw))) } }));
    return { url, raw, open: () => openDatabase(url, { poolSize: 2 }), drop };
  }
  const { schema, drop } = await createTestSchema();
  const raw = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: postgresUrl, max: 2, options: `-c search_path=${schema},public` }) }) });
  await migrateTo007(new Migrator({ db: raw, provider: { getMigrations: async () => allMigrations(columnTypes('postgres')) }, migrationTableSchema: schema }));
  const url = `${postgresUrl}${postgresUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema},public`)}`;
  return { url, raw, open: () => openDatabase(postgresUrl as string, { schema }), drop };
}

for (const dialect of dialects) {
  describe(`upgrading to the event pipeline (migration 020) [${dialect}]`, () => {
    let place: Awaited<ReturnType<typeof databaseAt007>>;
    let store: OpenDatabase;
    const likeBody = JSON.stringify({ kind: 'comment', type: 'comment', action: 'like', fileId: 'plan', userId: 'lilei', likeComment: { selectionGuid: 's1', content: '赞' } });
    const commentBody = JSON.stringify(commentCreate('plan', 'zhang', { guid: 'old-1', content: 'before the upgrade', userIds: ['lilei'] }));

    beforeAll(async () => {
      place = await databaseAt007(dialect);
      // What the earlier version left: a processed comment with its effects, and a `like` it did not know (stored).
      await sql`INSERT INTO events (delivery_key, kind, action, file_id, user_id, credential, status, received_at, body)
                VALUES ('k-1', 'Comment', 'create', 'plan', 'zhang', 'token', 'processed', '2024-03-01T08:00:00Z', ${commentBody}),
                       ('k-2', 'Comment', 'like', 'plan', 'lilei', 'token', 'stored', '2024-03-01T08:00:01Z', ${likeBody})`.execute(place.raw);
      await sql`INSERT INTO notifications (id, type, occurred_at, data, status, attempts, dedupe_key, event_id, created_at)
                VALUES ('n-1', 'comment.created', '2024-03-01T08:00:00Z', '{"commentId":"old-1"}', 'delivered', 1, 'comment:plan:old-1', 1, '2024-03-01T08:00:00Z')`.execute(
        place.raw,
      );
      await sql`INSERT INTO activity (user_id, file_id, related_user_id, kind, occurred_at) VALUES ('zhang', 'plan', NULL, 'comment', '2024-03-01T08:00:00Z')`.execute(place.raw);
      await sql`INSERT INTO reminders (file_id, id, author_id, content, remind_user_ids, remind_at, due_at_ms, status, created_at, updated_at)
                VALUES ('plan', 'r-old', 'zhang', 'old', '["lilei"]', '2030-01-01T00:00:00Z', 1893456000000, 'scheduled', '2024-03-01T08:00:00Z', '2024-03-01T08:00:00Z')`.execute(
        place.raw,
      );
      await place.raw.destroy();
      store = await place.open();
      await seedDirectory(store.db);
    });
    afterAll(async () => {
      await store.close();
      await place.drop();
    });

    it('keeps what the earlier version logged: processed stays processed, stored becomes unprocessed with the reason', async () => {
      const events = await store.db.selectFrom('events').select(['id', 'outcome', 'problem', 'received_ms']).orderBy('id').execute();
      expect(events).toEqual([
        { id: 1, outcome: 'processed', problem: null, received_ms: null },
        { id: 2, outcome: 'unprocessed', problem: 'its kind or action was not known when it was received', received_ms: null },
      ]);
      const reminder = await store.db.selectFrom('reminders').select(['id', 'status', 'last_event_id']).executeTakeFirstOrThrow();
      expect(reminder).toEqual({ id: 'r-old', status: 'scheduled', last_event_id: 0 });
    });

    it('re-processing after the upgrade derives what this version understands, and applies nothing twice', async () => {
      const { app } = await buildEventApp(store, { adminApiKey: ADMIN_KEY });
      try {
        const like = await app.inject({ method: 'POST', url: '/api/events/2/reprocess', headers: admin });
        expect(like.json()).toEqual({ id: 2, outcome: 'processed', problem: null });
        const again = await app.inject({ method: 'POST', url: '/api/events/1/reprocess', headers: admin });
        expect(again.json()).toEqual({ id: 1, outcome: 'processed', problem: null });
        // The comment's notification (made before the upgrade) is not made again; its mention is new.
        const notifications = await store.db.selectFrom('notifications').select(['type', 'dedupe_key']).orderBy('seq').execute();
        expect(notifications).toEqual([
          { type: 'comment.created', dedupe_key: 'comment:plan:old-1' },
          { type: 'mention.created', dedupe_key: 'mention:plan:comment:old-1:lilei' },
        ]);
      } finally {
        await app.close();
      }
    });

    // Seven runs of the command, each a process of its own: a generous time-out on a loaded machine.
    it('the events command re-processes by outcome and by id, and prints the statistics', { timeout: 180_000 }, async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'collab-events-cli-'));
      const env = cliEnv(place.url);
      try {
        await store.db.updateTable('events').set({ outcome: 'unprocessed', problem: 'pretend' }).where('id', '=', 2).execute();
        const byOutcome = await runCli(['events', 'reprocess', '--outcome', 'unprocessed'], { cwd, env });
        expect(byOutcome).toMatchObject({ code: 0, stdout: 're-processed 1 event(s): 1 processed\nevent 2: processed\n' });
        const byId = await runCli(['events', 'reprocess', '1', '--json'], { cwd, env });
        expect(byId.code).toBe(0);
        expect(JSON.parse(byId.stdout)).toEqual({ id: 1, outcome: 'processed', problem: null });
        const stats = await runCli(['events', 'stats', '--json'], { cwd, env });
        expect(stats.code).toBe(0);
        expect(JSON.parse(stats.stdout)).toMatchObject({ log: { pending: 0, unprocessed: 0, refused: 0 }, waiting: { count: 0 }, reminders: { due: 0, late: 0 } });
        const unknown = await runCli(['events', 'reprocess', '999'], { cwd, env });
        expect(unknown).toMatchObject({ code: 1, stderr: 'no event 999 in DATABASE_URL\n' });
        expect((await runCli(['events', '--help'], { cwd, env })).code).toBe(0);
        const usage = await runCli(['events', 'reprocess'], { cwd, env });
        expect(usage.code).toBe(2);
        expect(usage.stderr).toContain('reprocess takes an event ID or --outcome');
        expect((await runCli(['events', 'reprocess', '--outcome', 'processed'], { cwd, env })).code).toBe(2);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  });
}
