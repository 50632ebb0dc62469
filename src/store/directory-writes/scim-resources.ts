import { dialectOf } from '../dialect/dialect.js';
import type { Db } from '../schema/schema.js';
import type { ConflictSyntax } from '../statements/bulk-table.js';
import { Statement } from '../statements/statement.js';

export type ScimKind = 'User' | 'Group';

/** One SCIM resource: the attributes the client wrote, kept to answer reads with them. */
export interface ScimResourceRow {
  kind: ScimKind;
  /** The directory id of the user or department. */
  id: string;
  teamId: string;
  /** `userName` / `displayName`, lower-cased: unique per team and kind. */
  nameKey: string;
  externalId: string | null;
  attributes: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** The SCIM resources of a team (src/store/schema/tables/sync.ts, `scim_resources`). */
export interface ScimResourceStore {
  /** The resource of this kind and id, in any team. */
  get(kind: ScimKind, id: string): Promise<ScimResourceRow | undefined>;
  /** The team's resources of a kind, oldest first; narrowed to one name key or external id when given. */
  list(teamId: string, kind: ScimKind, narrow?: { nameKey?: string; externalId?: string }): Promise<ScimResourceRow[]>;
  /**
   * Which of the team's resources of a kind hold `nameKey`, and which hold `externalId` (when given): the
   * ids of each, in one statement (a create checks both before anything else).
   */
  holders(teamId: string, kind: ScimKind, keys: { nameKey: string; externalId: string | undefined }): Promise<{ byName: string[]; byExternalId: string[] }>;
  /** The team's resources of a kind among `ids`. */
  getMany(teamId: string, kind: ScimKind, ids: readonly string[]): Promise<ScimResourceRow[]>;
  /** Creates or replaces the resource. */
  put(row: ScimResourceRow): Promise<void>;
  /**
   * Creates the resource unless its id or its name key is taken (by a request running at the same time,
   * say): answers whether it was created.
   */
  create(row: ScimResourceRow): Promise<boolean>;
  /** Forgets the resource (the directory record may stay, deactivated). */
  remove(kind: ScimKind, id: string): Promise<void>;
}

type Row = { kind: string; id: string; team_id: string; name_key: string; external_id: string | null; attributes: string; created_at: string; updated_at: string };

function fromRow(row: Row): ScimResourceRow {
  return {
    kind: row.kind as ScimKind,
    id: row.id,
    teamId: row.team_id,
    nameKey: row.name_key,
    externalId: row.external_id,
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const CHUNK = 500;

function toRow(row: ScimResourceRow) {
  return {
    kind: row.kind,
    id: row.id,
    team_id: row.teamId,
    name_key: row.nameKey,
    external_id: row.externalId,
    attributes: JSON.stringify(row.attributes),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** The two uniqueness keys' holders, each lookup on its own index; `held` says which key a row holds. */
const HOLDERS_OF_NAME = new Statement(`SELECT id, 'name' AS held FROM scim_resources WHERE team_id = $1 AND kind = $2 AND name_key = $3`);
const HOLDERS = new Statement(
  `SELECT id, 'name' AS held FROM scim_resources WHERE team_id = $1 AND kind = $2 AND name_key = $3
   UNION ALL SELECT id, 'external' AS held FROM scim_resources WHERE team_id = $1 AND kind = $2 AND external_id = $4`,
);

const ROW_COLUMNS = ['kind', 'id', 'team_id', 'name_key', 'external_id', 'attributes', 'created_at', 'updated_at'] as const;
const INSERT_ROW = `INTO scim_resources (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})`;

/** A new resource unless its id or its name key is taken (no conflict target: the primary key and the unique name index both count). */
const CREATE: Readonly<Record<ConflictSyntax, Statement>> = {
  'on-conflict': new Statement(`INSERT ${INSERT_ROW} ON CONFLICT DO NOTHING`),
  'on-duplicate-key': new Statement(`INSERT IGNORE ${INSERT_ROW}`),
};

export function sqlScimResources(db: Db): ScimResourceStore {
  return {
    async get(kind, id) {
      const row = await db.selectFrom('scim_resources').selectAll().where('kind', '=', kind).where('id', '=', id).executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },
    async list(teamId, kind, narrow = {}) {
      let query = db.selectFrom('scim_resources').selectAll().where('team_id', '=', teamId).where('kind', '=', kind);
      if (narrow.nameKey !== undefined) query = query.where('name_key', '=', narrow.nameKey);
      if (narrow.externalId !== undefined) query = query.where('external_id', '=', narrow.externalId);
      return (await query.orderBy('created_at').orderBy('id').execute()).map(fromRow);
    },
    async holders(teamId, kind, { nameKey, externalId }) {
      const byName: string[] = [];
      const byExternalId: string[] = [];
      const statement = externalId === undefined ? HOLDERS_OF_NAME : HOLDERS;
      const rows = await statement.run<{ id: string; held: string }>(db, externalId === undefined ? [teamId, kind, nameKey] : [teamId, kind, nameKey, externalId]);
      for (const row of rows) (row.held === 'name' ? byName : byExternalId).push(row.id);
      return { byName, byExternalId };
    },
    async getMany(teamId, kind, ids) {
      const found: ScimResourceRow[] = [];
      for (let start = 0; start < ids.length; start += CHUNK) {
        const chunk = ids.slice(start, start + CHUNK);
        const rows = await db.selectFrom('scim_resources').selectAll().where('team_id', '=', teamId).where('kind', '=', kind).where('id', 'in', chunk).execute();
        found.push(...rows.map(fromRow));
      }
      return found;
    },
    async put(row) {
      const values = toRow(row);
      await dialectOf(db)
        .conflicts.insertOrUpdate(db.insertInto('scim_resources').values(values), ['kind', 'id'], ['team_id', 'name_key', 'external_id', 'attributes', 'updated_at'])
        .execute();
    },
    async create(row) {
      const values = toRow(row);
      const statement = CREATE[dialectOf(db).conflictSyntax];
      const result = await db.executeQuery(
        statement.compile(
          db,
          ROW_COLUMNS.map((column) => values[column]),
        ),
      );
      return Number(result.numAffectedRows ?? 0) === 1;
    },
    async remove(kind, id) {
      await db.deleteFrom('scim_resources').where('kind', '=', kind).where('id', '=', id).execute();
    },
  };
}
