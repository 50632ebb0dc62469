import type { AuditRecord } from '../../src/store/audit/audit-log.js';

/** An access decision of `actorId` on `fileId` at `at`, as the audit trail logs it, told apart by `action`. */
export const accessDecision = (at: string, actorId: string, fileId: string | null, action: string): AuditRecord => ({
  at,
  kind: 'file_access',
  actorId,
  credential: 'user_token',
  fileId,
  action,
  permissions: ['readable'],
  details: null,
});
