import type { ColumnType, Generated } from 'kysely';

/** A column with a default: optional on insert. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** Directory sync (docs/sync.md): the record of every run, sources' own state, and SCIM's resources. */
export interface SyncTables {
  /** One row per sync run: an LDAP run, or one SCIM write request. */
  sync_runs: {
    id: Generated<number>;
    /** scim | ldap */
    source: string;
    /** full | incremental | request */
    mode: string;
    dry_run: Defaulted<number>;
    /** running | ok | unchanged | failed */
    status: string;
    /** What ran, e.g. `PATCH /Users/u1`, or why an incremental run skipped. */
    detail: string | null;
    started_at: string;
    duration_ms: number | null;
    created: Defaulted<number>;
    updated: Defaulted<number>;
    removed: Defaulted<number>;
    deactivated: Defaulted<number>;
    reactivated: Defaulted<number>;
    /** Entries the run left out (LDAP entries no rule lets in). */
    skipped: Defaulted<number>;
    /** JSON array of { dn, reason }: the first skipped entries (the count above is exact). */
    skipped_entries: Defaulted<string>;
    /** JSON: ids per section and kind of change, e.g. { "users": { "created": ["u1"] } } */
    changes: Defaulted<string>;
    /** JSON array of messages */
    errors: Defaulted<string>;
  };
  /** A source's bookkeeping between runs (LDAP: the change high-water mark, the last full run). */
  sync_state: { source: string; key: string; value: string };
  /**
   * What a SCIM client wrote, per resource: the attributes as received (echoed back on reads), the
   * lower-cased `userName` / `displayName` (unique per team and kind) and `externalId`. `id` is the
   * directory id of the user or department.
   */
  scim_resources: {
    kind: string;
    id: string;
    team_id: string;
    name_key: string;
    external_id: string | null;
    attributes: string;
    created_at: string;
    updated_at: string;
  };
}
