import type { Kysely } from 'kysely';
import type { DocumentRecords } from '../platform/create-document.js';
import { fileRow } from './directory-writer.js';
import type { Database } from './schema.js';

/** The create-document flow's writes over the store's `files` table. */
export function sqlDocumentRecords(db: Kysely<Database>): DocumentRecords {
  return {
    async reserve(file) {
      const row = fileRow({ ...file, status: 'pending' });
      // Insert-or-nothing is one atomic statement: two callers racing for one id cannot both win.
      const inserted = await db
        .insertInto('files')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
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
  };
}
