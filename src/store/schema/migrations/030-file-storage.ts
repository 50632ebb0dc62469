import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { SHORT, type ColumnTypes } from './column-types.js';

/** Rows hashed per batch when filling `sha256` (the bytes of each batch are held in memory at once). */
const BATCH = 50;

/**
 * File bytes may live outside the database (FILE_STORAGE): `file_contents` stays the row of every stored
 * file and gains the SHA-256 of its bytes and where they are (`in_database`). Rows already there hold
 * their bytes, so they get `in_database = 1` and their hash is computed here.
 */
export function fileStorageMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('file_contents')
        .addColumn('sha256', t.key(SHORT), (column) => column.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('file_contents')
        .addColumn('in_database', 'integer', (column) => column.notNull().defaultTo(sql`1`))
        .execute();
      const rows = db as unknown as Kysely<{ file_contents: { file_id: string; content: Buffer; sha256: string } }>;
      let after = '';
      for (;;) {
        const batch = await rows.selectFrom('file_contents').select(['file_id', 'content']).where('file_id', '>', after).orderBy('file_id').limit(BATCH).execute();
        for (const row of batch) {
          const sha256 = createHash('sha256').update(row.content).digest('hex');
          await rows.updateTable('file_contents').set({ sha256 }).where('file_id', '=', row.file_id).execute();
        }
        if (batch.length < BATCH) break;
        after = batch[batch.length - 1]!.file_id;
      }
    },
  };
}
