import { describe, expect, it } from 'vitest';
import { auditLog } from '../../src/store/audit/audit-log.js';
import { auditIndex } from '../../src/store/audit/audit-index.js';
import { storeBefore } from '../helpers/store-before.js';
import { dialects } from '../helpers/stores.js';
import { accessDecision } from './access-decision.js';

/**
 * Migration 190 replaces the audit log's file and actor indexes with tables filled in passes: the entries
 * already there are indexed by the migration itself, and listing by file or actor answers as before.
 */
describe.each(dialects)('migration 190 on the audit log [%s]', (dialect) => {
  it('indexes the entries already logged, so listing by file and actor finds them through the side tables', async () => {
    const store = await storeBefore(dialect, '190-audit-index-batches');
    try {
      const entry = (action: string, actorId: string, fileId: string | null) => accessDecision('2026-03-01T09:00:00Z', actorId, fileId, action);
      await auditLog.append(store.db, [entry('a1', 'zhang', 'plan'), entry('a2', 'lilei', 'plan'), entry('a3', 'zhang', null)]);
      await store.migrateAll();
      // PostgreSQL indexes only rows of transactions older than every one running on the server (other tests' too).
      if (dialect !== 'postgres') {
        expect(await auditIndex.mark(store.db)).toBeGreaterThan(0);
        expect((await store.db.selectFrom('audit_file_ids').select('id').execute()).length).toBe(2);
        expect((await store.db.selectFrom('audit_actor_ids').select('id').execute()).length).toBe(3);
      }
      expect((await auditLog.list(store.db, { fileId: 'plan', limit: 10 })).items.map((item) => item.action)).toEqual(['a1', 'a2']);
      expect((await auditLog.list(store.db, { actorId: 'zhang', limit: 10 })).items.map((item) => item.action)).toEqual(['a1', 'a3']);
    } finally {
      await store.close();
    }
  });
});
