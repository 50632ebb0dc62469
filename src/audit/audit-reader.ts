import { auditLog, type AuditFilter, type StoredAuditRecord } from '../store/audit/audit-log.js';
import type { Db } from '../store/schema/schema.js';
import type { TailPosition } from '../store/statements/tail-order.js';

/** Reads of the audit log, oldest first, one page at a time (`GET /api/audit`). The writes go through `AuditTrail`. */
export interface AuditReader {
  list(filter: AuditFilter): Promise<{ items: StoredAuditRecord[]; next: TailPosition | null }>;
}

export function auditReader(db: Db): AuditReader {
  return { list: (filter) => auditLog.list(db, filter) };
}
