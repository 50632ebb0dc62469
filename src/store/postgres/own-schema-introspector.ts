import { sql, type DatabaseIntrospector, type DatabaseMetadata, type DatabaseMetadataOptions, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

interface ColumnRow {
  column: string;
  not_null: boolean;
  has_default: boolean;
  table: string;
  table_type: string;
  schema: string;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
}

/** Kysely's own bookkeeping tables, left out unless asked for (as Kysely's introspector does). */
const KYSELY_TABLES = ['kysely_migration', 'kysely_migration_lock'];

/**
 * Kysely's introspection, over the store's own schema (`current_schema()`, the first of the search path)
 * only. Kysely's PostgreSQL introspector lists the columns of every schema of the database and calls
 * catalog functions on each; when another client drops a table or a schema meanwhile (another tenant's
 * collab-host, a test), those functions look up what the query's snapshot still lists and fail ("column … of
 * relation … does not exist", "schema … does not exist"). The migrator introspects before every run, so a
 * start could fail for what happened in a schema that is not ours.
 */
export class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string | null }>`SELECT current_schema() AS name`.execute(this.db);
    return rows.flatMap((row) => (row.name === null ? [] : [{ name: row.name }]));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      SELECT a.attname AS column, a.attnotnull AS not_null, a.atthasdef AS has_default, c.relname AS table,
             c.relkind AS table_type, ns.nspname AS schema, typ.typname AS type, dtns.nspname AS type_schema,
             col_description(a.attrelid, a.attnum) AS column_description,
             pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname) AS auto_incrementing
        FROM pg_catalog.pg_attribute a
        JOIN pg_catalog.pg_class c ON a.attrelid = c.oid
        JOIN pg_catalog.pg_namespace ns ON c.relnamespace = ns.oid
        JOIN pg_catalog.pg_type typ ON a.atttypid = typ.oid
        JOIN pg_catalog.pg_namespace dtns ON typ.typnamespace = dtns.oid
       WHERE ns.nspname = current_schema() AND c.relkind IN ('r', 'v', 'p') AND a.attnum >= 0 AND NOT a.attisdropped
       ORDER BY c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && KYSELY_TABLES.includes(row.table)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.table_type === 'v', columns: [] };
        tables.set(row.table, table);
      }
      (table.columns as TableMetadata['columns'][number][]).push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing !== null,
        ...(row.column_description === null ? {} : { comment: row.column_description }),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}
