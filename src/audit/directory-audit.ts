import { formatTime } from '../directory/time.js';
import { auditLog, type AuditRecord } from '../store/audit/audit-log.js';
import type { Db } from '../store/schema/schema.js';

/** The parts of a directory diff the audit reads (the shape of src/directory-changes/change-diff.ts). */
interface AuditedDiff {
  created: Record<string, string[]>;
  updated: Record<string, string[]>;
  removed: Record<string, string[]>;
}

/**
 * A directory change listener (src/composition/directory-writes.ts) writing one audit entry per record a change
 * created, updated or removed, in the change's own transaction: a change and its audit commit together.
 * The credential is the source that wrote it (api, snapshot, scim, ldap); the management request itself is
 * recorded with the admin key or console session that made it.
 */
export function directoryAuditListener(now: () => number = Date.now) {
  return async (trx: Db, diff: AuditedDiff, options: { source: string }): Promise<void> => {
    const at = formatTime(now());
    const records: AuditRecord[] = [];
    for (const [change, sections] of [
      ['created', diff.created],
      ['updated', diff.updated],
      ['removed', diff.removed],
    ] as const) {
      for (const [section, ids] of Object.entries(sections)) {
        for (const id of ids) {
          records.push({
            at,
            kind: 'directory_change',
            actorId: null,
            credential: options.source,
            fileId: section === 'files' ? id : null,
            action: `${section} ${change}`,
            permissions: null,
            details: { id },
          });
        }
      }
    }
    await auditLog.append(trx, records);
  };
}
