import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import type { OpenDatabase } from '../store/database.js';
import {
  clearDirectory,
  putFileContent,
  rebuildDepartmentClosure,
  replaceGrants,
  upsertDepartments,
  upsertFiles,
  upsertTeams,
  upsertUsers,
} from '../store/directory-writer.js';
import { withIndexesDeferred } from '../store/deferred-indexes.js';
import { contentTypeForExtension, extensionOf } from './content-type.js';
import { EMPTY_DIRECTORY, storeDirectory } from './existing-directory.js';
import type { SnapshotProblem } from './problems.js';
import { validateSnapshot } from './validate.js';

export interface ImportOptions {
  /** true: the directory becomes exactly the snapshot; false (default): upsert by id. */
  replace?: boolean;
  /** Directory of the snapshot file (`contentFile` paths are relative to it). */
  baseDir?: string;
}

/** What an import wrote. */
export interface ImportCounts {
  teams: number;
  departments: number;
  users: number;
  files: number;
  grants: number;
  contents: number;
}

export type ImportResult = { ok: true; counts: ImportCounts } | { ok: false; problems: SnapshotProblem[] };

/** The tables a replace rewrites in bulk (their secondary indexes are built after the rows). */
const BULK_TABLES = ['users', 'user_departments', 'files', 'file_grants'];

/** Thrown inside the transaction to roll it back when validation refuses the snapshot. */
class Refused extends Error {
  constructor(readonly problems: SnapshotProblem[]) {
    super('snapshot refused');
  }
}

/**
 * Validates and writes a snapshot in ONE transaction: all of it, or (with any problem) none of it.
 * Validation runs inside the transaction, so the store rows an upsert points to cannot vanish before
 * the write. A one-record snapshot upserts that record with the same rules (the management API).
 */
export async function importSnapshot(store: OpenDatabase, input: unknown, options: ImportOptions = {}): Promise<ImportResult> {
  const replace = options.replace ?? false;
  try {
    const counts = await store.db.transaction().execute(async (trx) => {
      const validation = await validateSnapshot(input, {
        existing: replace ? EMPTY_DIRECTORY : storeDirectory(trx),
        ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
      });
      if (!validation.ok) throw new Refused(validation.problems);
      const { teams, departments, users, files } = validation.snapshot;

      // Read the bytes before writing anything: a file that vanished since validation fails the import whole.
      const contents = await Promise.all(
        files
          .filter((entry) => entry.contentPath !== null)
          .map(async ({ file, contentPath }) => ({
            fileId: file.id,
            contentType: contentTypeForExtension(file.ext ?? extensionOf(contentPath!)),
            bytes: await readFile(contentPath!),
          })),
      );

      if (replace) await clearDirectory(trx);
      await upsertTeams(trx, teams);
      if (departments.length > 0 || replace) {
        await upsertDepartments(trx, departments);
        await rebuildDepartmentClosure(trx);
      }
      const grants = files.flatMap((entry) => entry.grants);
      const write = async () => {
        await upsertUsers(trx, users, { fresh: replace });
        await upsertFiles(
          trx,
          files.map((entry) => entry.file),
        );
        // After a clear there is nothing to delete; otherwise a file's sharing replaces its old grants.
        await replaceGrants(trx, replace ? [] : files.map((entry) => entry.file.id), grants);
      };
      // A replace writes every row anew: build the big tables' secondary indexes once, at the end.
      if (replace) await withIndexesDeferred(trx, store.dialect, BULK_TABLES, write);
      else await write();
      for (const content of contents) await putFileContent(trx, content.fileId, content.contentType, content.bytes);
      return { teams: teams.length, departments: departments.length, users: users.length, files: files.length, grants: grants.length, contents: contents.length };
    });
    // PostgreSQL plans from table statistics; right after a bulk load they describe the old tables
    // (or none), and the permission joins fall back to sequential scans until autovacuum catches up.
    if (store.dialect === 'postgres') await sql`ANALYZE teams, departments, department_ancestors, users, user_departments, files, file_grants`.execute(store.db);
    return { ok: true, counts };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, problems: error.problems };
    throw error;
  }
}
