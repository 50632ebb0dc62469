import type { OpenDatabase } from '../store/connection/database.js';
import type { Db } from '../store/schema/schema.js';
import { storedRecords } from '../store/directory-writes/directory-records.js';
import type { DirectorySection } from './directory-store.js';
import { recordOf, storedIdOf, type DirectoryRecord } from './record-form.js';

/** Reads of the directory one record or one page at a time, in the management API's complete form. */
export interface DirectoryRecords {
  /** The record with this id; undefined when there is none (or the file's platform creation is not done). */
  get(section: DirectorySection, id: string): Promise<DirectoryRecord | undefined>;
  /** Up to `limit` records after the id `after`, in id order; `last` is the id to continue after, null at the end. */
  page(section: DirectorySection, page: { after?: string; limit: number }): Promise<{ items: DirectoryRecord[]; last: string | null }>;
}

export function directoryRecords(store: OpenDatabase): DirectoryRecords {
  return directoryRecordsOver(store.db);
}

/** The same reads over `db`: the store, or a write turn's transaction (DirectoryChanges.inTurn). */
export function directoryRecordsOver(db: Db): DirectoryRecords {
  const reader = storedRecords(db);
  return {
    async get(section, id) {
      const [stored] = await reader.read(section, [id], { activeOnly: true });
      return stored === undefined ? undefined : recordOf(section, stored, 'complete');
    },
    async page(section, { after, limit }) {
      // One more id than asked: whether there is a next page, without a count.
      const ids = await reader.pageIds(section, { ...(after === undefined ? {} : { after }), limit: limit + 1, activeOnly: true });
      const shown = ids.slice(0, limit);
      const byId = new Map((await reader.read(section, shown, { activeOnly: true })).map((stored) => [storedIdOf(section, stored), stored]));
      const items = shown.flatMap((id) => {
        const stored = byId.get(id);
        return stored === undefined ? [] : [recordOf(section, stored, 'complete')];
      });
      return { items, last: ids.length > limit ? (shown.at(-1) ?? null) : null };
    },
  };
}
