import { dialectOf } from '../dialect/dialect.js';
import type { Kysely } from 'kysely';
import type { FileRecord } from '../../directory/types.js';
import { fileRow } from '../directory-writes/directory-writer.js';
import type { Database } from '../schema/schema.js';

/**
 * The writes of the platform's document flows (create, copy, import, export, delete) over the `files`
 * table. It matches the `DocumentRecords` port of src/platform/create-document.ts by shape, so the store
 * does not import the domain.
 */
export interface SqlDocumentRecords {
  /** Writes the file `pending`; false when the id is taken by a file that is not `failed` (whose row is then overwritten). */
  reserve(file: Omit<FileRecord, 'hasStoredContent' | 'status'>): Promise<boolean>;
  /** Sets the file's status. */
  setStatus(fileId: string, status: 'active' | 'failed'): Promise<void>;
  /** Removes a file that is not `active`, with its grants. */
  remove(fileId: string): Promise<void>;
  /** Removes a file whatever its status, with its grants and stored bytes. */
  removeDocument(fileId: string): Promise<void>;
}

export function sqlDocumentRecords(db: Kysely<Database>): SqlDocumentRecords {
  return {
    async reserve(file) {
      const row = fileRow({ ...file, status: 'pending' });
      // Insert-or-nothing is one atomic statement: two callers racing for one id cannot both win.
      const inserted = await dialectOf(db).conflicts.insertOrKeep(db.insertInto('files').values(row), ['id']).executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
      // The id of a failed creation may be tried again.
      const { id, ...rest } = row;
      const retried = await db.updateTable('files').set(rest).where('id', '=', id).where('status', '=', 'failed').executeTakeFirst();
      if (Number(retried.numUpdatedRows) !== 1) return false;
      await db.deleteFrom('file_grants').where('file_id', '=', id).execute();
      return true;
    },
    async setStatus(fileId, status) {
      await db.updateTable('files').set({ status }).where('id', '=', fileId).execute();
    },
    async remove(fileId) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('file_grants').where('file_id', '=', fileId).execute();
        await trx.deleteFrom('files').where('id', '=', fileId).where('status', '!=', 'active').execute();
      });
    },
    async removeDocument(fileId) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('file_grants').where('file_id', '=', fileId).execute();
        await trx.deleteFrom('file_contents').where('file_id', '=', fileId).execute();
        await trx.deleteFrom('files').where('id', '=', fileId).execute();
      });
    },
  };
}
