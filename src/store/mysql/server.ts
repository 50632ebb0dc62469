import { sql, type Kysely } from 'kysely';

/**
 * The binary utf8mb4 collation without trailing-space padding of the server, so that `'a'` and `'a '`
 * are two names, as on SQLite and PostgreSQL: MariaDB's utf8mb4_nopad_bin, MySQL 8's utf8mb4_0900_bin.
 */
export async function mysqlBinaryCollation(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ version: string }>`SELECT VERSION() AS version`.execute(db);
  return /mariadb/i.test(rows[0]?.version ?? '') ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}
