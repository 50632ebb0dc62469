import { Migrator, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';
import { columnTypes } from './migrations/column-types.js';
import { allMigrations } from './migrations/index.js';
import type { Database } from './schema.js';

/** Where the database stands against the migrations this version of collab-host knows. */
export interface MigrationStatus {
  /** Known migrations already applied, in order, with when. */
  applied: Array<{ name: string; appliedAt: Date }>;
  /** Known migrations not applied yet, in the order they would apply. */
  pending: string[];
  /** Applied migrations this version does not know: the database was migrated by a newer version. */
  unknown: string[];
}

/** The database was migrated by a newer collab-host: this one must not run on it (nor migrate it). */
export class DatabaseTooNewError extends Error {
  override name = 'DatabaseTooNewError';
  constructor(readonly unknown: readonly string[]) {
    super(
      `the database was migrated by a newer version of collab-host: migration${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} ` +
        'unknown to this version; run the newer version (or restore the backup taken before the upgrade)',
    );
  }
}

const MIGRATION_TABLE = 'kysely_migration';

/** PostgreSQL's invalid_schema_name and undefined_table: what a concurrent DROP SCHEMA made Kysely's check of its own tables fail with. */
const TRANSIENT_CATALOG_ERRORS = new Set(['3F000', '42P01']);

/** The migrations of one store: status, and applying what is pending. */
export class MigrationRunner {
  private readonly migrator: Promise<{ migrator: Migrator; schema: string | undefined }>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: StoreDialect,
  ) {
    this.migrator = (async () => {
      const { schema, binaryCollation } = await dialect.migrationSetting(db);
      const types = columnTypes(dialect.name, binaryCollation);
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => allMigrations(types) },
        // Features own number ranges (061-069 retention and audit, …), so a release may bring a migration
        // numbered below one a database already has (070, 080): apply it then rather than refuse the
        // database. Every migration only adds, and none depends on a later-numbered one.
        allowUnorderedMigrations: true,
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      return { migrator, schema };
    })();
  }

  /** Applied, pending and unknown migrations (one read of the bookkeeping table). */
  async status(): Promise<MigrationStatus> {
    const { schema } = await this.migrator;
    const known = Object.keys(allMigrations(columnTypes(this.dialect.name))).sort();
    const applied = new Map((await this.appliedRows(schema)).map((row) => [row.name, row.timestamp]));
    return {
      applied: known.filter((name) => applied.has(name)).map((name) => ({ name, appliedAt: new Date(applied.get(name)!) })),
      pending: known.filter((name) => !applied.has(name)),
      unknown: [...applied.keys()].filter((name) => !known.includes(name)).sort(),
    };
  }

  /**
   * Applies every pending migration, in order; returns the names applied. Refuses a database that a newer
   * version migrated (DatabaseTooNewError) before changing anything.
   */
  async migrateToLatest(): Promise<string[]> {
    const { unknown } = await this.status();
    if (unknown.length > 0) throw new DatabaseTooNewError(unknown);
    const { migrator } = await this.migrator;
    let { error, results } = await migrator.migrateToLatest();
    // Before applying anything Kysely looks for its bookkeeping tables. Its PostgreSQL introspector listed
    // the tables of every schema and failed when another client dropped one meanwhile (tests, multi-tenant
    // databases); ours lists our schema only (postgres/own-schema-introspector.ts). That look was also seen
    // once in CI to fail with undefined_table for its own lock table, which existed. Nothing was applied
    // then (migrations run in one locked transaction): try again; a table really missing fails every try.
    for (let retry = 0; retry < 3 && TRANSIENT_CATALOG_ERRORS.has(String((error as { code?: unknown } | undefined)?.code)); retry++) {
      ({ error, results } = await migrator.migrateToLatest());
    }
    if (error) {
      const failed = results?.find((result) => result.status === 'Error');
      throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`);
    }
    return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
  }

  /**
   * Every row of the bookkeeping table; none before the first migration made it. Read directly rather
   * than through schema introspection, which lists every schema of the database and fails when another
   * client drops one at the same moment.
   */
  private async appliedRows(schema: string | undefined): Promise<Array<{ name: string; timestamp: string }>> {
    const scoped = (schema === undefined ? this.db : this.db.withSchema(schema)) as unknown as Kysely<{ [MIGRATION_TABLE]: { name: string; timestamp: string } }>;
    try {
      return await scoped.selectFrom(MIGRATION_TABLE).select(['name', 'timestamp']).orderBy('name').execute();
    } catch (error) {
      if (isMissingTable(error)) return [];
      throw error;
    }
  }
}

/** PostgreSQL's undefined_table, MySQL's ER_NO_SUCH_TABLE, SQLite's "no such table". */
function isMissingTable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '42P01' || code === 'ER_NO_SUCH_TABLE' || /no such table/.test((error as Error).message ?? '');
}
