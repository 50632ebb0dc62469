import type { Db } from '../store/schema/schema.js';
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
}

/** Records read per page: memory stays bounded whatever the size of the directory. */
const PAGE = 1_000;

/**
 * The directory as a snapshot: importing it (with --replace, into an empty store or any) gives the
 * same directory. Optional fields at their default are left out; every list is ordered by id, so two
 * exports of the same directory are the same text. Only `active` files are exported: a document whose
 * platform creation is pending or failed is not part of the directory yet.
 */
export async function exportSnapshot(db: Db, options: ExportOptions = {}): Promise<Required<Snapshot>> {
  const reader = storedRecords(db);
  const snapshot: Required<Snapshot> = { teams: [], departments: [], users: [], files: [] };
  for (const section of SECTIONS) {
    const records = snapshot[section] as unknown[];
    for (let after: string | undefined, ids: string[]; (ids = await reader.pageIds(section, { after, limit: PAGE, activeOnly: true })).length > 0; after = ids.at(-1)) {
      const byId = new Map((await reader.read(section, ids, { activeOnly: true })).map((stored) => [storedIdOf(section, stored), stored]));
      for (const id of ids) {
        const stored = byId.get(id);
        if (stored === undefined) continue;
        const record = recordOf(section, stored);
        if (section === 'files' && options.writeContent && (stored as StoredRecords['files']).contentSize !== null) {
          const { file } = stored as StoredRecords['files'];
          (record as SnapshotFileRecord).contentFile = await options.writeContent({ id: file.id, ext: file.ext });
        }
        records.push(record);
      }
    }
  }
  return snapshot;
}

/** How many files of the store have bytes collab-host serves (an export without contents leaves them out). */
export async function countStoredContents(db: Db): Promise<number> {
  return storedRecords(db).storedContentCount();
}
