import type { Generated } from 'kysely';

/** The platform client's own tables (migration 040): import/export tasks and the seat task queue. */
export interface PlatformTables {
  /** Import and export tasks started through collab-host, so their progress can finish what they began. */
  platform_tasks: {
    /** import | export */
    kind: string;
    /** The platform's task id. */
    task_id: string;
    /** import: the new document; export: the exported document. */
    file_id: string;
    /** Whose token the calls carry (the importer, or the user who asked for the export). */
    user_id: string;
    /** Import API version, 1 or 2 (exports: 1). */
    version: number;
    /** export: the format asked for (docx, pdf, …); import: null. */
    format: string | null;
    /** running | done | failed */
    status: string;
    progress: number;
    /** export: the third-party file holding the exported bytes, once fetched. */
    result_file_id: string | null;
    /** Why a task failed. */
    message: string | null;
    created_at: string;
    updated_at: string;
  };
  /** Seat (de)activations queued by directory changes; the seat worker sends them until done. */
  platform_seat_tasks: {
    id: Generated<number>;
    user_id: string;
    /** activate | deactivate */
    action: string;
    /** pending | done | superseded (a later task for the same user replaced it before it ran) */
    status: string;
    attempts: Generated<number>;
    next_attempt_ms: number;
    claim_token: string | null;
    last_error: string | null;
    /** The directory change's source (api, snapshot, scim, ldap, reconcile). */
    source: string;
    created_at: string;
    done_at: string | null;
  };
}
