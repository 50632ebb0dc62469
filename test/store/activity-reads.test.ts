import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECENT_ACTIVITY_ROWS } from '../../src/directory/search-port.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { kyselyReads } from '../../src/store/statements/prepared-reads.js';
import { dialects, openTestStore } from '../helpers/stores.js';

// The activity that ranks a search is read in one statement for the kinds of one search
// (src/store/directory-reads/activity-reads.ts); what each reader gets is what it would get alone.
const rows = [
  { user_id: 'ann', file_id: 'plan', related_user_id: 'bob', kind: 'mention', occurred_at: '2026-01-01T09:00:00.000Z' },
  { user_id: 'ann', file_id: 'plan', related_user_id: 'bob', kind: 'mention', occurred_at: '2026-01-03T09:00:00.000Z' },
  { user_id: 'cat', file_id: 'memo', related_user_id: 'ann', kind: 'mention', occurred_at: '2026-01-02T09:00:00.000Z' },
  { user_id: 'ann', file_id: 'memo', related_user_id: null, kind: 'edit', occurred_at: '2026-01-04T09:00:00.000Z' },
  { user_id: 'bob', file_id: 'plan', related_user_id: null, kind: 'comment', occurred_at: '2026-01-05T09:00:00.000Z' },
  { user_id: 'bob', file_id: null, related_user_id: 'cat', kind: 'mention', occurred_at: '2026-01-06T09:00:00.000Z' },
];

for (const dialect of dialects) {
  describe(`the activity of a search, read together [${dialect}]`, () => {
    let store: OpenDatabase;
    let directory: SqlDirectory;
    beforeAll(async () => {
      store = await openTestStore(dialect);
      await store.db.insertInto('activity').values(rows).execute();
      directory = SqlDirectory.over(store);
    });
    afterAll(async () => store?.close());

    it('answers each part asked for in one turn as if it were asked alone', async () => {
      const [annContacts, annTouched, onPlan, bobContacts, bobTouched, onMemo, annAgain] = await Promise.all([
        directory.contactsOf('ann'),
        directory.touchedFilesOf('ann'),
        directory.activityOnFile('plan'),
        // A second search in the same turn, for another viewer and file.
        directory.contactsOf('bob'),
        directory.touchedFilesOf('bob'),
        directory.activityOnFile('memo'),
        directory.contactsOf('ann'),
      ]);
      expect(Object.fromEntries(annContacts)).toEqual({ bob: '2026-01-03T09:00:00.000Z', cat: '2026-01-02T09:00:00.000Z' });
      expect(Object.fromEntries(annTouched)).toEqual({ plan: '2026-01-03T09:00:00.000Z', memo: '2026-01-04T09:00:00.000Z' });
      expect(Object.fromEntries(onPlan)).toEqual({ ann: '2026-01-03T09:00:00.000Z', bob: '2026-01-05T09:00:00.000Z' });
      expect(Object.fromEntries(bobContacts)).toEqual({ ann: '2026-01-03T09:00:00.000Z', cat: '2026-01-06T09:00:00.000Z' });
      expect(Object.fromEntries(bobTouched)).toEqual({ plan: '2026-01-05T09:00:00.000Z' });
      expect(Object.fromEntries(onMemo)).toEqual({ ann: '2026-01-04T09:00:00.000Z', cat: '2026-01-02T09:00:00.000Z' });
      expect(Object.fromEntries(annAgain)).toEqual(Object.fromEntries(annContacts));
      // Asked alone, in turns of their own: the same.
      expect(Object.fromEntries(await directory.touchedFilesOf('ann'))).toEqual(Object.fromEntries(annTouched));
      expect(Object.fromEntries(await directory.activityOnFile('plan'))).toEqual(Object.fromEntries(onPlan));
      expect((await directory.contactsOf('nobody')).size).toBe(0);
    });

    it('runs one statement for what one turn asks of a viewer and a file, one more for another viewer', async () => {
      const statements: unknown[] = [];
      const real = kyselyReads(store.db);
      const counted = new SqlDirectory(store.db, { reads: { rows: (statement, parameters) => (statements.push(parameters), real.rows(statement, parameters)) } });
      // The kinds of one search: contacts asked by three of them, the touched files and the file's activity.
      await Promise.all([counted.contactsOf('ann'), counted.contactsOf('ann'), counted.touchedFilesOf('ann'), counted.activityOnFile('plan'), counted.contactsOf('ann')]);
      expect(statements).toEqual([['ann', 'ann', 'plan']]);
      statements.length = 0;
      await Promise.all([counted.contactsOf('ann'), counted.contactsOf('bob'), counted.activityOnFile('plan')]);
      expect(statements).toEqual([
        ['ann', null, 'plan'],
        ['bob', null, null],
      ]);
    });

    it('reads only the newest rows of each part', async () => {
      const many = Array.from({ length: RECENT_ACTIVITY_ROWS + 5 }, (_, index) => ({
        user_id: 'dan',
        file_id: `f${index}`,
        related_user_id: null,
        kind: 'edit',
        occurred_at: new Date(Date.UTC(2025, 0, 1) + index * 60_000).toISOString(),
      }));
      await store.db.insertInto('activity').values(many).execute();
      const [touched, onOldest] = await Promise.all([directory.touchedFilesOf('dan'), directory.activityOnFile('f0')]);
      expect(touched.size).toBe(RECENT_ACTIVITY_ROWS);
      expect(touched.has('f0')).toBe(false);
      expect(touched.get(`f${RECENT_ACTIVITY_ROWS + 4}`)).toBe(many.at(-1)!.occurred_at);
      // The file's own activity is read apart from the viewer's: its one row is there.
      expect(Object.fromEntries(onOldest)).toEqual({ dan: many[0]!.occurred_at });
    });

    it('a read that fails fails every reader of its statement, and the next turn reads again', async () => {
      const other = await openTestStore(dialect);
      const closed = SqlDirectory.over(other);
      await other.close();
      const results = await Promise.allSettled([closed.contactsOf('ann'), closed.touchedFilesOf('ann'), closed.activityOnFile('plan')]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect((await directory.contactsOf('ann')).size).toBe(2);
    });
  });
}
