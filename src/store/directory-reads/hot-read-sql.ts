import type { Selectable } from 'kysely';
import type { DialectSql } from '../dialect/dialect-sql.js';
import { DIRECTORY_AREAS } from '../schema/directory-tracking.js';
import type { Database } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/** A file row with `has_content`, the viewer's strongest granted rank, and the people version read with it. */
export type FileForViewerRow = Selectable<Database['files']> & { has_content: number; granted_rank: number | null; people_version: number };

/**
 * The statements of every document open (the token's user; the file with the viewer's strongest grant),
 * run as prepared statements (src/store/statements/prepared-reads.ts). The grant check takes the viewer's principals
 * from the cached scope (src/store/directory-reads/viewer-scope.ts) as a list parameter, so it reads only the file's own
 * few grants; the people version comes back with the row, so a scope made stale by a write (here or on
 * another instance) is noticed by the same statement and read again.
 */
export interface HotStatements {
  /** $1: the user. */
  userById: Statement;
  /** $1: the file, $2: the principal keys (`kind:id`). The file in any status. */
  fileForViewer: Statement;
  /** $1: the file, $2: the principal keys. One row: `rank` (or null) and `people_version`. */
  grantedRank: Statement;
}

const PEOPLE_VERSION = `(SELECT version FROM directory_versions WHERE id = ${DIRECTORY_AREAS.people}) AS people_version`;

const byDialect = new WeakMap<DialectSql, HotStatements>();

export function hotStatements(dialect: DialectSql): HotStatements {
  let statements = byDialect.get(dialect);
  if (!statements) {
    const rank = `(SELECT MAX(g.role_rank) FROM file_grants g
                    WHERE g.file_id = $1 AND (g.principal_kind || ':' || g.principal_id) IN ${dialect.idList('$2')})`;
    statements = {
      userById: new Statement('SELECT * FROM users WHERE id = $1'),
      fileForViewer: new Statement(`
        SELECT f.*, CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END AS has_content, ${rank} AS granted_rank, ${PEOPLE_VERSION}
          FROM files f LEFT JOIN file_contents c ON c.file_id = f.id
         WHERE f.id = $1`),
      grantedRank: new Statement(`SELECT ${rank} AS rank, ${PEOPLE_VERSION}`),
    };
    byDialect.set(dialect, statements);
  }
  return statements;
}
