import type { ReadContext } from '../read-context.js';
import type { FileList, PrincipalKey, ViewerScope } from '../cached-shapes.js';
import { splitPrincipal } from '../viewer-scope.js';
import { SEARCH_SQL } from './search-statements.js';

/**
 * Which files one searcher may read, as the union of what each of their principals is granted (each
 * principal's files cached until a write to the grants: the team's are shared by every member) and the
 * files they created. Checking a file is a few map lookups instead of grant probes in SQL.
 */
export interface FileAccess {
  /** The non-empty file maps of the searcher's principals (file id -> role rank). */
  readonly granted: ReadonlyArray<{ key: PrincipalKey; files: ReadonlyMap<string, number> }>;
  readonly created: ReadonlySet<string>;
  /** At least the number of files the searcher may read (any status), at most the sum of the parts. */
  readonly sizeBound: number;
  /** The generation of the principal-file cache these maps come from. */
  readonly generation: number;
}

export async function fileAccessOf(context: ReadContext, scope: ViewerScope): Promise<FileAccess> {
  const { caches, reads } = context;
  const generation = caches.principalFiles.generation;
  const granted = await Promise.all(
    scope.principals.map(async (key) => ({
      key,
      files: await caches.principalFiles.through(
        key,
        async () => {
          const { kind, id } = splitPrincipal(key);
          const rows = await reads.rows<{ file_id: string; role_rank: number }>(SEARCH_SQL.principalFiles, [kind, id]);
          return new Map(rows.map((row) => [row.file_id, Number(row.role_rank)]));
        },
        (files) => Math.max(1, files.size),
      ),
    })),
  );
  const created = new Set(
    await caches.createdFiles.through(
      scope.userId,
      async () => (await reads.rows<{ id: string }>(SEARCH_SQL.createdFiles, [scope.userId])).map((row) => row.id),
      (ids) => Math.max(1, ids.length),
    ),
  );
  const nonEmpty = granted.filter((part) => part.files.size > 0);
  const sizeBound = nonEmpty.reduce((sum, part) => sum + part.files.size, created.size);
  return { granted: nonEmpty, created, sizeBound, generation };
}

/** Whether the searcher may read the file (any status). */
export function mayRead(access: FileAccess, fileId: string): boolean {
  return access.created.has(fileId) || access.granted.some((part) => part.files.has(fileId));
}

/** The strongest role rank a grant gives the searcher on the file, or undefined. */
export function grantedRank(access: FileAccess, fileId: string): number | undefined {
  let best: number | undefined;
  for (const part of access.granted) {
    const rank = part.files.get(fileId);
    if (rank !== undefined && (best === undefined || rank > best)) best = rank;
  }
  return best;
}

/** Every file the searcher may read, each once (for `readableScan`-sized sets only). */
export function readableIds(access: FileAccess): string[] {
  const ids = new Set(access.created);
  for (const part of access.granted) for (const id of part.files.keys()) ids.add(id);
  return [...ids];
}

/** Principals with fewer files than this are intersected with a list per search; larger ones once. */
const MEMO_FROM = 64;

/**
 * The positions in `list` (ascending, each once) of the files the searcher may read. Each large
 * principal's intersection with the list is kept with the list (the team's is the same for everyone),
 * so a search costs the sum of the intersections, not the size of the list or of the readable set.
 */
export function readablePositions(list: FileList, access: FileAccess): Int32Array {
  if (list.intersectionsOf !== access.generation) {
    list.intersections.clear();
    list.intersectionsOf = access.generation;
  }
  const parts: Int32Array[] = [];
  for (const { key, files } of access.granted) {
    let positions = list.intersections.get(key);
    if (!positions) {
      positions = intersect(list, files.keys(), files.size, (id) => files.has(id));
      if (files.size >= MEMO_FROM) list.intersections.set(key, positions);
    }
    parts.push(positions);
  }
  parts.push(intersect(list, access.created.values(), access.created.size, (id) => access.created.has(id)));
  return union(parts);
}

function intersect(list: FileList, ids: Iterable<string>, size: number, has: (id: string) => boolean): Int32Array {
  const positions: number[] = [];
  if (size < list.ids.length) {
    for (const id of ids) {
      const position = list.positionOf(id);
      if (position !== undefined) positions.push(position);
    }
    return Int32Array.from(positions).sort();
  }
  list.ids.forEach((id, position) => {
    if (has(id)) positions.push(position);
  });
  return Int32Array.from(positions);
}

function union(parts: Int32Array[]): Int32Array {
  const nonEmpty = parts.filter((part) => part.length > 0);
  if (nonEmpty.length === 0) return new Int32Array(0);
  if (nonEmpty.length === 1) return nonEmpty[0] as Int32Array;
  const all = new Int32Array(nonEmpty.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of nonEmpty) {
    all.set(part, offset);
    offset += part.length;
  }
  all.sort();
  let length = 0;
  for (let i = 0; i < all.length; i += 1) if (i === 0 || all[i] !== all[i - 1]) all[length++] = all[i] as number;
  return all.subarray(0, length);
}
