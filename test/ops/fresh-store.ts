import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, type OpenDatabase, type OpenDatabaseOptions } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { createTestDatabase, createTestSchema, postgresUrl } from '../helpers/stores.js';

/**
 * A store of its own for tests that open, migrate or refuse databases: an SQLite file in a new temporary
 * directory, a fresh PostgreSQL schema or a fresh MySQL database; `url` is its DATABASE_URL for a command.
 * `open` may be called again (a restart); `drop` removes the file, the schema or the database.
 */
export async function freshStore(dialect: DialectName): Promise<{ url: string; open: (options?: OpenDatabaseOptions) => Promise<OpenDatabase>; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ch-store-'));
    const url = `sqlite:${join(dir, 'store.db')}`;
    return { url, open: (options) => openDatabase(url, options), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (dialect === 'mysql') {
    const { url, drop } = await createTestDatabase();
    return { url, open: (options) => openDatabase(url, { poolSize: 2, ...options }), drop };
  }
  const { schema, drop } = await createTestSchema();
  const url = new URL(postgresUrl!);
  url.searchParams.set('options', `-c search_path=${schema},public`);
  return { url: url.href, open: (options) => openDatabase(postgresUrl!, { schema, poolSize: 2, ...options }), drop };
}

/** What a newer collab-host leaves behind: a migration this version does not know, recorded as applied. */
export async function markMigratedByNewerVersion(store: OpenDatabase): Promise<void> {
  await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('099-from-a-newer-version', '2030-01-01T00:00:00.000Z')`.execute(store.db);
}
