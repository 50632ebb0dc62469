import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import type { Database } from '../../src/store/schema/schema.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { serially } from '../helpers/serially.js';
import { storeBefore } from '../helpers/store-before.js';
import { describeEachStore, openTestStore } from '../helpers/stores.js';

const DROP = '160-drop-search-index';

/** Every table, column, index, trigger and function of the store, names only where the schema shows. */
async function schemaOf(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{
      line: string;
    }>`SELECT type || ' ' || name || ' ' || coalesce(sql, '') AS line FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`.execute(db);
    return rows.map((row) => row.line);
  }
  if (dialect === 'mysql') {
    const { rows } = await sql<{ line: string }>`
      SELECT CONCAT('column ', table_name, '.', column_name, ' ', column_type) AS line FROM information_schema.columns WHERE table_schema = DATABASE()
      UNION ALL SELECT CONCAT('index ', table_name, '.', index_name, ' ', seq_in_index, ' ', column_name) FROM information_schema.statistics WHERE table_schema = DATABASE()
      UNION ALL SELECT CONCAT('trigger ', trigger_name, ' ', event_object_table, ' ', event_manipulation) FROM information_schema.triggers WHERE trigger_schema = DATABASE()
      ORDER BY 1`.execute(db);
    return rows.map((row) => row.line);
  }
  return serially(db, async (trx) => {
    const { rows } = await sql<{ line: string }>`
      SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type AS line FROM information_schema.columns WHERE table_schema = current_schema()
      UNION ALL SELECT 'index ' || indexname || ' ' || replace(indexdef, current_schema() || '.', '') FROM pg_indexes WHERE schemaname = current_schema()
      UNION ALL SELECT 'trigger ' || trigger_name || ' ' || event_object_table || ' ' || event_manipulation FROM information_schema.triggers WHERE trigger_schema = current_schema()
      UNION ALL SELECT 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema()
      ORDER BY 1`.execute(trx);
    return rows.map((row) => row.line);
  });
}

/**
 * On PostgreSQL, what migrations 003 and 006 made before 2026-11-28 (a new store gets none of it since):
 * the short-gram function and its GIN indexes, and the trigram indexes where the database has pg_trgm
 * (in whatever schema: its operator class is named by it).
 */
async function madeByOlderVersions(db: Kysely<Database>): Promise<void> {
  const trgm = await sql<{ schema: string }>`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`.execute(db);
  const schema = trgm.rows[0]?.schema;
  if (schema !== undefined) {
    for (const table of ['users', 'departments', 'files']) {
      await sql`CREATE INDEX ${sql.id(`${table}_name_trgm`)} ON ${sql.id(table)} USING gin (lower(name) ${sql.id(schema, 'gin_trgm_ops')})`.execute(db);
    }
  }
  await sql`
    CREATE FUNCTION ch_search_grams(name text, local text, pinyin text, initials text)
    RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT ARRAY['n:' || left(lower(coalesce(name, '')), 1), 'p:' || left(coalesce(pinyin, ''), 1)]
    $$`.execute(db);
  await sql`CREATE INDEX users_short_grams ON users USING gin (ch_search_grams(name, email, name_pinyin, name_initials))`.execute(db);
  await sql`CREATE INDEX departments_short_grams ON departments USING gin (ch_search_grams(name, '', name_pinyin, name_initials))`.execute(db);
  await sql`CREATE INDEX files_short_grams ON files USING gin (ch_search_grams(name, '', name_pinyin, name_initials))`.execute(db);
}

describeEachStore('migration 160 (the SQL search index dropped)', (_store, dialect) => {
  it('leaves a database upgraded with a directory in it with the schema of a new one, and writes still work', async () => {
    // The version before: every migration but 160, then a directory whose rows the search triggers indexed.
    const upgraded = await storeBefore(dialect, DROP, { laterToo: true });
    try {
      await seedDirectory(upgraded.db);
      if (dialect === 'postgres') await madeByOlderVersions(upgraded.db);
      const indexed = (await schemaOf(upgraded.db, dialect)).filter((line) => /search|_fts|gram|trgm/.test(line));
      // MySQL came after 160: the search index was never made there.
      if (dialect === 'mysql') expect(indexed).toEqual([]);
      else expect(indexed.length).toBeGreaterThan(0);

      expect(await upgraded.migrateAll()).toEqual([DROP]);
      const newer = await openTestStore(dialect);
      try {
        const upgradedSchema = await schemaOf(upgraded.db, dialect);
        expect(upgradedSchema.filter((line) => /search|_fts|gram|trgm/.test(line))).toEqual([]);
        expect(upgradedSchema).toEqual(await schemaOf(newer.db, dialect));
      } finally {
        await newer.close();
      }
      // The directory's rows survive, and writing them (which ran the dropped triggers) still works.
      await upgraded.db.updateTable('users').set({ name: '张三丰' }).where('id', '=', 'zhang').execute();
      await upgraded.db.deleteFrom('files').where('id', '=', 'plan').execute();
      expect((await upgraded.db.selectFrom('users').select('name').where('id', '=', 'zhang').executeTakeFirst())?.name).toBe('张三丰');
    } finally {
      await upgraded.close();
    }
  });
});
