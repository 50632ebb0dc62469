import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

/**
 * What the validation of an upsert needs to know about rows already in the store: records of the
 * snapshot may point to them. Every method takes the ids asked about and answers only for those,
 * so a one-record check costs a few indexed lookups, not a scan.
 */
export interface ExistingDirectory {
  /** The ids among `ids` that are teams in the store. */
  teams(ids: readonly string[]): Promise<Set<string>>;
  /** The departments among `ids`, with their team and parent. */
  departments(ids: readonly string[]): Promise<Map<string, { teamId: string; parentId: string | null }>>;
  /** The users among `ids`, with their team. */
  users(ids: readonly string[]): Promise<Map<string, { teamId: string | null }>>;
}

/** Nothing exists: what a `--replace` import is checked against. */
export const EMPTY_DIRECTORY: ExistingDirectory = {
  teams: async () => new Set(),
  departments: async () => new Map(),
  users: async () => new Map(),
};

const LOOKUP_CHUNK = 500;

/** The store's directory tables (inside the import's transaction, so the answers hold while it writes). */
export function storeDirectory(db: Kysely<Database> | Transaction<Database>): ExistingDirectory {
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
  };
}

function chunks(ids: readonly string[]): string[][] {
  const unique = [...new Set(ids)];
  const result: string[][] = [];
  for (let start = 0; start < unique.length; start += LOOKUP_CHUNK) result.push(unique.slice(start, start + LOOKUP_CHUNK));
  return result;
}
