import type { Generated } from 'kysely';

/** The audit log (docs/operations.md, "Audit trail"): append-only, pruned only by AUDIT_RETENTION_DAYS. */
export interface AuditTables {
  audit_log: {
    id: Generated<number>;
    /** When the decision or change was made, in the interface's time format. */
    at: string;
    /** file_access | management | directory_change | sign_in */
    kind: string;
    /** The user (access), the console or admin key (management), the source (directory changes). */
    actor_id: string | null;
    /** user_token | platform_signature | download_link | admin_key | console_session | api | snapshot | scim | ldap */
    credential: string;
    file_id: string | null;
    /** What was done: the route (`GET /files/:fileId`) or the change (`users updated`). */
    action: string;
    /** The permissions decided, comma-separated (`readable,commentable`); '' none; null not an access decision. */
    permissions: string | null;
    /** JSON: the answer's status, the record id, … */
    details: string | null;
  };
  /** `audit_log` rows by file, written in sorted batches (migration 190, src/store/audit/audit-index.ts). */
  audit_file_ids: { file_id: string; id: number };
  /** `audit_log` rows by actor, as `audit_file_ids`. */
  audit_actor_ids: { actor_id: string; id: number };
  /** One row: the `audit_log` row up to which (in tail order) both tables above hold every row. */
  audit_index_mark: { id: number; indexed_through: number };
}
