import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { columnTypes } from '../../src/store/schema/migrations/column-types.js';
import { allMigrations } from '../../src/store/schema/migrations/index.js';
import { mysqlKyselyDialect } from '../../src/store/mysql/kysely-dialect.js';
import { createMysqlPool } from '../../src/store/mysql/pool.js';
import { mysqlBinaryCollation } from '../../src/store/mysql/server.js';
import type { Database } from '../../src/store/schema/schema.js';
import { createTestDatabase, createTestSchema, postgresUrl } from './stores.js';

/** A database migrated up to, and not including, the migration named `next`: as a store released before it. */
export async function storeBefore(dialect: DialectName, next: string): Promise<{ db: Kysely<Database>; migrateAll: () => Promise<void>; close: () => Promise<void> }> {
  let db: Kysely<Database>;
  let drop = async () => undefined as void;
  let migrationTableSchema: string | undefined;
  if (dialect === 'sqlite') {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
  } else if (dialect === 'mysql') {
    const database = await createTestDatabase();
    drop = database.drop;
    db = new Kysely<Database>({ dialect: mysqlKyselyDialect(createMysqlPool(database.url, { poolSize: 2 })) });
  } else {
    const schema = await createTestSchema();
    drop = schema.drop;
    migrationTableSchema = schema.schema; // as openDatabase does: not another schema's bookkeeping
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: postgresUrl, max: 2, options: `-c search_path=${schema.schema},public` }) }),
    });
  }
  const migrations = allMigrations(columnTypes(dialect, dialect === 'mysql' ? await mysqlBinaryCollation(db) : undefined));
  const migrator = (only: Record<string, Migration>) =>
    new Migrator({ db, provider: { getMigrations: async () => only }, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < next));
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
