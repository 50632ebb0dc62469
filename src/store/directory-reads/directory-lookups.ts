import type { ExistingDirectory } from '../../directory-changes/existing-directory.js';
import type { Db } from '../schema/schema.js';

/** Ids per `IN (…)` lookup: well under both dialects' bound-parameter limits. */
const LOOKUP_CHUNK = 500;

/** The store's directory tables as the validation's `ExistingDirectory` (run it inside the write's transaction). */
export function storeDirectory(db: Db): ExistingDirectory {
  return {
    async teams(ids) {
      const found = new Set<string>();
      for (const chunk of chunks(ids)) {
        for (const row of await db.selectFrom('teams').select('id').where('id', 'in', chunk).execute()) found.add(row.id);
      }
      return found;
    },
    async departments(ids) {
      const found = new Map<string, { teamId: string; parentId: string | null }>();
      for (const chunk of chunks(ids)) {
        const rows = await db.selectFrom('departments').select(['id', 'team_id', 'parent_id']).where('id', 'in', chunk).execute();
        for (const row of rows) found.set(row.id, { teamId: row.team_id, parentId: row.parent_id });
      }
      return found;
    },
    async users(ids) {
      const found = new Map<string, { teamId: string | null }>();
      for (const chunk of chunks(ids)) {
        const rows = await db.selectFrom('users').select(['id', 'team_id']).where('id', 'in', chunk).execute();
        for (const row of rows) found.set(row.id, { teamId: row.team_id });
      }
      return found;
    },
    async filesWithStoredContent(ids) {
      const found = new Set<string>();
      for (const chunk of chunks(ids)) {
        for (const row of await db.selectFrom('file_contents').select('file_id').where('file_id', 'in', chunk).execute()) found.add(row.file_id);
      }
      return found;
    },
  };
}

/** The distinct ids in chunks of at most LOOKUP_CHUNK. */
export function chunks(ids: readonly string[], size = LOOKUP_CHUNK): string[][] {
  const unique = [...new Set(ids)];
  const result: string[][] = [];
  for (let start = 0; start < unique.length; start += size) result.push(unique.slice(start, start + size));
  return result;
}
