import type { Kysely } from 'kysely';
import type { Database, Db } from '../store/schema/schema.js';
import { inSnapshot } from '../store/change-feed/directory-change-feed.js';
import { storedRecords } from '../store/directory-writes/directory-records.js';
import type { StoredRecords } from '../directory-changes/directory-store.js';
import { recordOf, storedIdOf } from '../directory-changes/record-form.js';
import type { Snapshot, SnapshotFileRecord } from '../directory-changes/records.js';
import { SECTIONS } from '../directory-changes/records.js';

export interface ExportOptions {
  /**
   * Called once per file whose bytes collab-host stores (wherever FILE_STORAGE keeps them); writes them
   * somewhere and returns the path to put in `contentFile` (relative to where the snapshot will be
   * written). Without it, `contentFile` is left out: such a snapshot, imported as an upsert, keeps the
   * stored bytes that are already there.
   */
  writeContent?: (file: { id: string; ext: string | null }) => Promise<string>;
  /**
   * Called after each page of records is read, inside the export's snapshot, with the section and how
   * many of its records are read so far (a progress report; tests write meanwhile).
   */
  afterPage?: (section: (typeof SECTIONS)[number], read: number) => void | Promise<void>;
}

/** Records read per page: memory stays bounded whatever the size of the directory. */
const PAGE = 1_000;

/**
 * The directory as a snapshot: importing it (with --replace, into an empty store or any) gives the
 * same directory. Optional fields at their default are left out; every list is ordered by id, so two
 * exports of the same directory are the same text. Only `active` files are exported: a document whose
 * platform creation is pending or failed is not part of the directory yet.
 *
 * Every record is read in one snapshot of the store (each dialect's `inSnapshot`), so an export taken
 * while the service writes is the directory of one moment: a user moved into a department created after
 * the departments were read would otherwise name a department the snapshot lacks, and its import be
 * refused. The stored bytes are written afterwards, outside it (on SQLite they are read through the same
 * single connection the snapshot holds).
 */
export async function exportSnapshot(db: Kysely<Database>, options: ExportOptions = {}): Promise<Required<Snapshot>> {
  const withContent: Array<{ file: { id: string; ext: string | null }; record: SnapshotFileRecord }> = [];
  const snapshot = await inSnapshot(db, async (trx) => {
    const reader = storedRecords(trx);
    const read: Required<Snapshot> = { teams: [], departments: [], users: [], files: [] };
    for (const section of SECTIONS) {
      const records = read[section] as unknown[];
      for (let after: string | undefined, ids: string[]; (ids = await reader.pageIds(section, { after, limit: PAGE, activeOnly: true })).length > 0; after = ids.at(-1)) {
        const byId = new Map((await reader.read(section, ids, { activeOnly: true })).map((stored) => [storedIdOf(section, stored), stored]));
        for (const id of ids) {
          const stored = byId.get(id);
          if (stored === undefined) continue;
          const record = recordOf(section, stored);
          if (section === 'files' && options.writeContent && (stored as StoredRecords['files']).contentSize !== null) {
            const { file } = stored as StoredRecords['files'];
            withContent.push({ file: { id: file.id, ext: file.ext }, record: record as SnapshotFileRecord });
          }
          records.push(record);
        }
        await options.afterPage?.(section, records.length);
      }
    }
    return read;
  });
  for (const { file, record } of withContent) record.contentFile = await options.writeContent!(file);
  return snapshot;
}

/** How many files of the store have bytes collab-host serves (an export without contents leaves them out). */
export async function countStoredContents(db: Db): Promise<number> {
  return storedRecords(db).storedContentCount();
}
