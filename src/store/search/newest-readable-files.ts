import type { FileOrder } from '../../directory/directory.js';
import type { ReadContext } from '../read-context.js';
import type { ViewerScope } from '../cached-shapes.js';
import { fileAccessOf, grantedRank, mayRead, readableIds, type FileAccess } from './readable-files.js';
import type { SearchBounds } from './search-bounds.js';
import { idListStatements } from './search-statements.js';

/** Later than any stored time (`YYYY-MM-DDThh:mm:ssZ` text). */
const LATEST = '9999';

/** The first chunk of a walk (files per wanted file), and the largest. */
const FIRST_CHUNK_PER_FILE = 10;
const MAX_CHUNK = 2_000;

export interface NewestOptions {
  limit: number;
  orderBy: FileOrder;
  types?: readonly string[];
}

/**
 * `GET /files`: the newest active files a user may read, with bounded work. A user who may read few
 * files (at most `readableScan`) has them read by id and sorted. Otherwise the files are walked newest
 * first from the `updated_at` or `created_at` index, each checked against the user's cached principal
 * grants, until `limit` are found or `fileScan` files were read (then fewer come back).
 */
export async function newestReadableFiles(
  context: ReadContext,
  scope: ViewerScope,
  options: NewestOptions,
  bounds: SearchBounds,
): Promise<Array<{ id: string; rank: number | undefined }>> {
  const access = await fileAccessOf(context, scope);
  const ids = access.sizeBound <= bounds.readableScan ? await fromReadable(context, access, options) : await byWalk(context, access, options, bounds.fileScan);
  return ids.map((id) => ({ id, rank: grantedRank(access, id) }));
}

async function fromReadable(context: ReadContext, access: FileAccess, options: NewestOptions): Promise<string[]> {
  const ids = readableIds(access);
  if (ids.length === 0) return [];
  const column = options.orderBy === 'created_at' ? 'created_at' : 'updated_at';
  const rows = await context.reads.rows<{ id: string; type: string; status: string; created_at: string; updated_at: string }>(
    idListStatements(context.sql).files,
    [context.sql.idListValue(ids)],
  );
  return rows
    .filter((row) => row.status === 'active' && (!options.types?.length || options.types.includes(row.type)))
    .sort((a, b) => (a[column] === b[column] ? (a.id < b.id ? 1 : -1) : a[column] < b[column] ? 1 : -1))
    .slice(0, options.limit)
    .map((row) => row.id);
}

async function byWalk(context: ReadContext, access: FileAccess, options: NewestOptions, scan: number): Promise<string[]> {
  const column = options.orderBy === 'created_at' ? 'created_at' : 'updated_at';
  const found: string[] = [];
  // Keyset paging written as a range on the time index (`<= at`) with the ties already read left out:
  // both planners then walk the index backwards instead of sorting every file.
  let after = { at: LATEST, id: '' };
  let chunk = Math.max(100, options.limit * FIRST_CHUNK_PER_FILE);
  for (let read = 0; read < scan && found.length < options.limit; chunk = Math.min(MAX_CHUNK, chunk * 2)) {
    const want = Math.min(chunk, scan - read);
    const { at, id } = after;
    let query = context.db
      .selectFrom('files')
      .select(['id', `${column} as at`])
      .where('status', '=', 'active')
      .where(column, '<=', at)
      .where((eb) => eb.or([eb(column, '<', at), eb('id', '<', id)]))
      .orderBy(column, 'desc')
      .orderBy('id', 'desc')
      .limit(want);
    if (options.types?.length) query = query.where('type', 'in', options.types);
    const rows = await query.execute();
    for (const row of rows) if (found.length < options.limit && mayRead(access, row.id)) found.push(row.id);
    read += rows.length;
    const last = rows[rows.length - 1];
    if (!last || rows.length < want) break;
    after = { at: last.at, id: last.id };
  }
  return found;
}
