import { dialectOf } from '../dialect/dialect.js';
import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { FileObject, FileObjectRows, SaveOutcome } from '../../storage/file-object-rows.js';
import type { Database, Db } from '../schema/schema.js';

const NO_BYTES = Buffer.alloc(0);
const COLUMNS = ['file_id', 'content_type', 'size', 'sha256', 'in_database'] as const;
type Row = Pick<Selectable<Database['file_contents']>, (typeof COLUMNS)[number]>;

/**
 * Writes the row of a stored file: with `inline`, the bytes go in the row (`in_database` 1); with null
 * they are in the configured back end and the row keeps none. The one upsert of `file_contents`.
 */
export async function writeFileObjectRow(db: Db, object: Omit<FileObject, 'inDatabase'>, inline: Buffer | null): Promise<void> {
  const values = {
    file_id: object.fileId,
    content_type: object.contentType,
    size: object.size,
    sha256: object.sha256,
    content: inline ?? NO_BYTES,
    in_database: inline === null ? 0 : 1,
  };
  await dialectOf(db).conflicts.insertOrUpdate(db.insertInto('file_contents').values(values), ['file_id'], ['content_type', 'size', 'sha256', 'content', 'in_database']).execute();
}

/** Stores bytes in the row itself (the snapshot import's `contentFile`), with their size and hash. */
export async function writeInlineContent(db: Db, fileId: string, contentType: string, content: Buffer): Promise<void> {
  const sha256 = createHash('sha256').update(content).digest('hex');
  await writeFileObjectRow(db, { fileId, contentType, size: content.length, sha256 }, content);
}

/** The file storage's rows over collab-host's own database. */
export class SqlFileObjects implements FileObjectRows {
  constructor(private readonly db: Kysely<Database>) {}

  async describeFile(fileId: string): Promise<{ type: string; name: string; ext: string | null } | undefined> {
    return this.db.selectFrom('files').select(['type', 'name', 'ext']).where('id', '=', fileId).executeTakeFirst();
  }

  async get(fileId: string): Promise<FileObject | undefined> {
    const row = await this.db.selectFrom('file_contents').select(COLUMNS).where('file_id', '=', fileId).executeTakeFirst();
    return row && toFileObject(row);
  }

  async list(options: { after?: string; limit: number }): Promise<FileObject[]> {
    let query = this.db.selectFrom('file_contents').select(COLUMNS).orderBy('file_id').limit(options.limit);
    if (options.after !== undefined) query = query.where('file_id', '>', options.after);
    return (await query.execute()).map(toFileObject);
  }

  async totals(): Promise<{ files: number; bytes: number }> {
    const row = await this.db
      .selectFrom('file_contents')
      .select((eb) => [eb.fn.countAll<number>().as('files'), eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('bytes')])
      .executeTakeFirst();
    return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  async readInline(fileId: string): Promise<Buffer | undefined> {
    const row = await this.db.selectFrom('file_contents').select('content').where('file_id', '=', fileId).where('in_database', '=', 1).executeTakeFirst();
    return row && Buffer.from(row.content);
  }

  async save(object: Omit<FileObject, 'inDatabase'>, inline: Buffer | null, updatedAt: string): Promise<SaveOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const touched = await trx.updateTable('files').set({ updated_at: updatedAt }).where('id', '=', object.fileId).where('type', '=', 'file').executeTakeFirst();
      if (Number(touched.numUpdatedRows) === 0) return 'no_file';
      const existed = await trx.selectFrom('file_contents').select('file_id').where('file_id', '=', object.fileId).executeTakeFirst();
      await writeFileObjectRow(trx, object, inline);
      return existed ? 'replaced' : 'created';
    });
  }

  async remove(fileId: string, updatedAt: string): Promise<FileObject | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('file_contents').select(COLUMNS).where('file_id', '=', fileId).executeTakeFirst();
      if (!row) return undefined;
      await trx.deleteFrom('file_contents').where('file_id', '=', fileId).execute();
      await trx.updateTable('files').set({ updated_at: updatedAt }).where('id', '=', fileId).execute();
      return toFileObject(row);
    });
  }

  async moveBytes(fileId: string, sha256: string, inline: Buffer | null): Promise<boolean> {
    const result = await this.db
      .updateTable('file_contents')
      .set({ content: inline ?? NO_BYTES, in_database: inline === null ? 0 : 1 })
      .where('file_id', '=', fileId)
      .where('sha256', '=', sha256)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

function toFileObject(row: Row): FileObject {
  return { fileId: row.file_id, contentType: row.content_type, size: Number(row.size), sha256: row.sha256, inDatabase: Number(row.in_database) === 1 };
}
