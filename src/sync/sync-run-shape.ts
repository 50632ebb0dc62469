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
  /** `deactivated` counts users kept deactivated, not removed ones; `skipped`: entries left out (exact). */
  counts: { created: number; updated: number; removed: number; deactivated: number; reactivated: number; skipped: number };
  changes: Record<string, Record<string, string[]>>;
  /** Entries the run could not take (at most 200 listed), each by its DN and why; everything else was applied. */
  skipped: SkippedEntry[];
  errors: string[];
}

/** An LDAP entry a run left out: its DN and the reason (the rule it breaks). */
export interface SkippedEntry {
  dn: string;
  reason: string;
}
