/**
 * A sync run as recorded and listed (`GET /api/sync/runs`): a plain type that imports nothing, so that the
 * store and the console (a browser build without Node's types) share it.
 */
export interface SyncRunRow {
  id: number;
  source: string;
  /** full or incremental (LDAP), request (one SCIM write) */
  mode: string;
  dryRun: boolean;
  /** running, ok, unchanged or failed */
  status: string;
  detail: string | null;
  startedAt: string;
  durationMs: number | null;
  counts: { created: number; updated: number; removed: number; deactivated: number; reactivated: number };
  changes: Record<string, Record<string, string[]>>;
  errors: string[];
}
