import SQLite from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/store/dialect.js';
import { allMigrations } from '../../src/store/migrations/index.js';
import type { Database } from '../../src/store/schema.js';
import { SqlFileObjects } from '../../src/store/file-objects.js';
import { createTestSchema, dialects, postgresUrl } from '../helpers/stores.js';

/** A database migrated up to, and not including, 030: as a store released before file storage is. */
async function storeBefore030(dialect: DialectName): Promise<{ db: Kysely<Database>; migrateAll: () => Promise<void>; close: () => Promise<void> }> {
  let db: Kysely<Database>;
  let drop = async () => undefined as void;
  let migrationTableSchema: string | undefined;
  if (dialect === 'sqlite') {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
  } else {
    const schema = await createTestSchema();
    drop = schema.drop;
    migrationTableSchema = schema.schema; // as openDatabase does: not another schema's bookkeeping
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: postgresUrl, max: 2, options: `-c search_path=${schema.schema},public` }) }) });
  }
  const migrations = allMigrations(dialect);
  const migrator = (only: Record<string, Migration>) => new Migrator({ db, provider: { getMigrations: async () => only }, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '030'));
  const { error } = await migrator(before).migrateToLatest();
  if (error) throw error;
  return {
    db,
    migrateAll: async () => {
      const result = await migrator(migrations).migrateToLatest();
      if (result.error) throw result.error;
    },
    close: async () => {
      await db.destroy();
      await drop();
    },
  };
}

for (const dialect of dialects) {
  describe(`migration 030-file-storage [${dialect}]`, () => {
    it('keeps every stored file with its bytes in the row, and records their SHA-256', async () => {
      const store = await storeBefore030(dialect);
      try {
        const rows = Array.from({ length: 120 }, (_, i) => ({ file_id: `f${String(i).padStart(3, '0')}`, content_type: 'text/plain', content: Buffer.from(`bytes of ${i}`), size: 0 }));
        for (const row of rows) row.size = row.content.length;
        await (store.db as unknown as Kysely<{ file_contents: (typeof rows)[number] }>).insertInto('file_contents').values(rows).execute();
        await store.migrateAll();
        const objects = new SqlFileObjects(store.db);
        const listed = await objects.list({ limit: 500 });
        expect(listed).toHaveLength(120);
        for (const [i, object] of listed.entries()) {
          expect(object).toEqual({ fileId: rows[i]!.file_id, contentType: 'text/plain', size: rows[i]!.size, sha256: createHash('sha256').update(rows[i]!.content).digest('hex'), inDatabase: true });
        }
        expect((await objects.readInline('f007'))?.toString()).toBe('bytes of 7');
      } finally {
        await store.close();
      }
    });
  });
}
