import type { Kysely } from 'kysely';
import { PollingTask, SILENT_LOG, type TaskLog } from '../events/polling-task.js';
import { auditIndex } from '../store/audit/audit-index.js';
import type { Database } from '../store/schema/schema.js';

/** How often the audit log's new rows are indexed by file and actor. */
export const AUDIT_INDEX_MS = 5000;

/** Rows one pass indexes at most; a longer backlog is worked through pass after pass. */
const AUDIT_INDEX_BATCH = 100_000;

/**
 * Indexes the audit log's new rows by file and by actor in large sorted batches (src/store/audit/audit-index.ts),
 * every AUDIT_INDEX_MS: what a listing by file or actor scans unindexed is what was written since. Every
 * instance runs one; on PostgreSQL two passes side by side only repeat each other's work.
 */
export function auditIndexer(db: Kysely<Database>, log: TaskLog = SILENT_LOG, intervalMs = AUDIT_INDEX_MS): PollingTask {
  return new PollingTask('audit-index', async () => (await auditIndex.indexPending(db, AUDIT_INDEX_BATCH)).more, intervalMs, log);
}
