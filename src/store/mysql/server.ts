import { sql, type Kysely } from 'kysely';

/**
 * The binary utf8mb4 collation without trailing-space padding of the server, so that `'a'` and `'a '`
 * are two names, as on SQLite and PostgreSQL: MariaDB's utf8mb4_nopad_bin, MySQL 8's utf8mb4_0900_bin.
 */
export async function mysqlBinaryCollation<DB>(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ version: string }>`SELECT VERSION() AS version`.execute(db);
  return binaryCollationOf(rows[0]?.version ?? '');
}

/** The collation of `mysqlBinaryCollation` for a server's VERSION(). */
export function binaryCollationOf(version: string): string {
  return /mariadb/i.test(version) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}
