import type { FileRecord } from '../types.js';
import { compareText } from './text-order.js';

/** Newest first, none last (times are `YYYY-MM-DDThh:mm:ssZ`, so text order is time order). */
export function newestFirst(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a > b ? -1 : 1;
}

/**
 * Files within a search tier, past the ones the viewer worked on: `updatedAt` (newest first), name, id.
 * The file-name index numbers its files in this order (src/directory/read-model/search-state.ts).
 */
export function byNewest(a: FileRecord, b: FileRecord): number {
  return newestFirst(a.updatedAt, b.updatedAt) || compareText(a.name, b.name) || compareText(a.id, b.id);
}
