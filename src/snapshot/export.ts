import type { Kysely } from 'kysely';
import type { Database, Db } from '../store/schema/schema.js';
import { inSnapshot } from '../store/change-feed/directory-change-feed.js';
import { storedRecords } from '../store/directory-writes/directory-records.js';
import type { StoredRecords } from '../directory-changes/directory-store.js';
import { recordOf, storedIdOf } from '../directory-changes/record-form.js';
import type { SectionName, Snapshot, SnapshotFileRecord } from '../directory-changes/records.js';
import { SECTIONS } from '../directory-changes/records.js';

/**
 * What `readExport` calls back. The callbacks run inside the snapshot's transaction: on SQLite it holds
 * the store's one connection, so a callback that queries the store waits for ever.
 */
export interface ExportOptions {
  /**
   * Called, in the snapshot, once per file whose bytes collab-host stores (wherever FILE_STORAGE keeps
   * them): answers the path to put in `contentFile` (relative to where the snapshot will be written); the
   * caller writes the bytes there after the export (src/storage/content-folder.ts). Without it,
   * `contentFile` is left out: such a snapshot, imported as an upsert, keeps the stored bytes that are
   * already there.
   */
  placeContent?: (file: { id: string; ext: string | null }) => string;
  /**
   * Called after each page of records is read, inside the export's snapshot, with the section and how
   * many of its records are read so far (a progress report; tests write meanwhile).
   */
  afterPage?: (section: SectionName, read: number) => void | Promise<void>;
}

/** One record of a snapshot's section, as exported. */
export type ExportedRecord = Required<Snapshot>[SectionName][number];

/** Records read per page: memory stays bounded whatever the size of the directory. */
const PAGE = 1_000;

/**
 * Hands every record of the directory's snapshot to `take`, section by section (teams, departments,
 * users, files), each section ordered by id, a page at a time: importing them (with --replace, into an
 * empty store or any) gives the same directory. Optional fields at their default are left out. Only
 * `active` files are exported: a document whose platform creation is pending or failed is not part of
 * the directory yet.
 *
 * Every record is read in one snapshot of the store (each dialect's `inSnapshot`), so an export taken
 * while the service writes is the directory of one moment: a user moved into a department created after
 * the departments were read would otherwise name a department the snapshot lacks, and its import be
 * refused. Stored bytes are only placed here (`placeContent`) and written afterwards, outside it (on
 * SQLite they are read through the single connection the snapshot holds).
 */
export async function readExport(db: Kysely<Database>, take: (section: SectionName, record: ExportedRecord) => void | Promise<void>, options: ExportOptions = {}): Promise<void> {
  await inSnapshot(db, async (trx) => {
    const reader = storedRecords(trx);
    for (const section of SECTIONS) {
      let read = 0;
      for (let after: string | undefined, ids: string[]; (ids = await reader.pageIds(section, { after, limit: PAGE, activeOnly: true })).length > 0; after = ids.at(-1)) {
        const byId = new Map((await reader.read(section, ids, { activeOnly: true })).map((stored) => [storedIdOf(section, stored), stored]));
        for (const id of ids) {
          const stored = byId.get(id);
          if (stored === undefined) continue;
          const record = recordOf(section, stored);
          if (section === 'files' && options.placeContent && (stored as StoredRecords['files']).contentSize !== null) {
            const { file } = stored as StoredRecords['files'];
            (record as SnapshotFileRecord).contentFile = options.placeContent({ id: file.id, ext: file.ext });
          }
          await take(section, record as ExportedRecord);
          read += 1;
        }
        await options.afterPage?.(section, read);
      }
    }
  });
}

/** The directory as one snapshot object (`readExport`'s records gathered; the whole directory in memory). */
export async function exportSnapshot(db: Kysely<Database>, options: ExportOptions = {}): Promise<Required<Snapshot>> {
  const snapshot: Required<Snapshot> = { teams: [], departments: [], users: [], files: [] };
  await readExport(db, (section, record) => void (snapshot[section] as ExportedRecord[]).push(record), options);
  return snapshot;
}

/** How many files of the store have bytes collab-host serves (an export without contents leaves them out). */
export async function countStoredContents(db: Db): Promise<number> {
  return storedRecords(db).storedContentCount();
}
