import { sql, type ColumnDataType, type ColumnDefinitionBuilder, type CreateTableBuilder, type Expression } from 'kysely';
import type { DialectName } from '../../dialect/dialect.js';

/** What Kysely's addColumn takes as a type. */
type DataTypeExpression = ColumnDataType | Expression<unknown>;

/** Characters of an id (TEXT_LIMITS.id in src/directory/text-rules.ts). */
export const ID = 255;
/** Characters of a name (TEXT_LIMITS.name). */
export const NAME = 500;
/** Characters of a kind, a status or a timestamp. */
export const SHORT = 64;

/**
 * The column types of one dialect, handed to every migration in place of a test of the dialect's name.
 * SQLite and PostgreSQL get exactly the types they always had (`text`, `integer`/`bigint`, …), so the
 * schema a migration makes there is unchanged; the MySQL types differ where MySQL needs it:
 * - it cannot key or index a TEXT column: text that is part of a key or an index is VARCHAR of the
 *   length the service allows (an index holds at most 3,072 bytes, 768 utf8mb4 characters);
 * - its TEXT holds 64 KB: other text is LONGTEXT;
 * - every table is utf8mb4 with a binary collation (`binaryCollation`), so equality and ORDER BY of
 *   names and keys are by code point, as on SQLite and PostgreSQL.
 */
export interface ColumnTypes {
  readonly dialect: DialectName;
  /** Text that is part of a key or an index, at most `length` characters. */
  key(length: number): DataTypeExpression;
  /** Text of any length, never indexed. */
  readonly text: DataTypeExpression;
  /** A 64-bit integer (epoch milliseconds, counters); SQLite's integer is 64-bit already. */
  readonly bigint: DataTypeExpression;
  /** An auto-numbered 64-bit key: the type, and `serialKey` on its column. */
  readonly serial: DataTypeExpression;
  serialKey(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Bytes (file contents). */
  readonly bytes: DataTypeExpression;
  /** The default of a text column: MySQL 8 takes a TEXT column's default only as an expression. */
  textDefault(value: string): string | Expression<unknown>;
  /** MySQL: the binary collation of every table (and of the database's own default). */
  readonly collation?: string;
  /** A new table, with MySQL's character set and collation. */
  table<T extends string, C extends string>(builder: CreateTableBuilder<T, C>): CreateTableBuilder<T, C>;
}

/** The column types of `dialect`; `binaryCollation` is MySQL's (utf8mb4_nopad_bin on MariaDB, utf8mb4_0900_bin on MySQL 8). */
export function columnTypes(dialect: DialectName, binaryCollation = 'utf8mb4_bin'): ColumnTypes {
  if (dialect === 'mysql') {
    return {
      dialect,
      collation: binaryCollation,
      key: (length) => `varchar(${length})`,
      text: sql`longtext`,
      bigint: 'bigint',
      serial: 'bigint',
      serialKey: (column) => column.primaryKey().autoIncrement(),
      bytes: sql`longblob`,
      textDefault: (value) => sql`(${sql.lit(value)})`,
      table: (builder) => builder.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=${sql.raw(binaryCollation)}`),
    };
  }
  const postgres = dialect === 'postgres';
  return {
    dialect,
    key: () => 'text',
    text: 'text',
    bigint: postgres ? 'bigint' : 'integer',
    serial: postgres ? 'bigserial' : 'integer',
    serialKey: (column) => column.primaryKey(),
    bytes: postgres ? 'bytea' : 'blob',
    textDefault: (value) => value,
    table: (builder) => builder,
  };
}
