import type { NameIndex } from './name-index.js';

/** Principals with at most this many files have their list built on each use, not kept. */
const UNCACHED_FILES = 32;

/**
 * Per principal (`kind:id`, and `creator:<userId>` for the files a user created): the entry numbers of
 * its files in the file-name index, ascending, so the files one user may read among a keyword's
 * candidates are a merge of sorted arrays rather than a map lookup per candidate and principal. Built on
 * first use for the current index, dropped when the principal's grants change or the index is built
 * again. A file written since the index was built has a stale entry (or none): the caller checks those
 * one by one, so a list may keep a stale entry.
 */
export class ReadableEntries {
  private index: NameIndex | undefined;
  private readonly lists = new Map<string, Int32Array>();
  /** Scratch marks for `countDistinct`, one per entry, all 0 between calls. */
  private marks = new Uint8Array(0);

  /** The entries of `files` (the principal's files now) in `index`, ascending. */
  of(index: NameIndex, principal: string, files: { size: number; keys(): Iterable<string> } | undefined): Int32Array {
    if (index !== this.index) {
      this.lists.clear();
      this.index = index;
    }
    let list = this.lists.get(principal);
    if (!list) {
      const numbers: number[] = [];
      for (const id of files?.keys() ?? []) {
        const number = index.numberOf(id);
        if (number !== undefined) numbers.push(number);
      }
      list = Int32Array.from(numbers).sort();
      // A few files are looked up again each time: one kept array per user would cost more memory.
      if ((files?.size ?? 0) > UNCACHED_FILES) this.lists.set(principal, list);
    }
    return list;
  }

  /**
   * How many distinct entries `lists` hold, those `skip` says left out, counting stops past `limit`.
   */
  countDistinct(lists: readonly Int32Array[], skip: (entry: number) => boolean, limit: number): number {
    const size = this.index?.size ?? 0;
    if (this.marks.length !== size) this.marks = new Uint8Array(size);
    const marks = this.marks;
    let count = 0;
    let done = 0;
    for (; done < lists.length && count <= limit; done += 1) {
      for (const entry of lists[done]!) {
        if (marks[entry] === 1 || skip(entry)) continue;
        marks[entry] = 1;
        count += 1;
      }
    }
    for (let list = 0; list < done; list += 1) for (const entry of lists[list]!) marks[entry] = 0;
    return count;
  }

  /** The principal's files changed. */
  forget(principal: string): void {
    this.lists.delete(principal);
  }

  clear(): void {
    this.lists.clear();
    this.index = undefined;
  }
}

/**
 * The positions in `candidates` (ascending entry numbers) of the entries in any of `lists`, ascending,
 * each once; at most `limit` of them (`truncated` when more were met). Each list is merged along the
 * candidates, or galloped into them when it is much shorter.
 */
export function readablePositions(candidates: Int32Array, lists: readonly Int32Array[], limit: number): { positions: Int32Array; truncated: boolean } {
  const found: number[] = [];
  let truncated = false;
  let contributing = 0;
  for (const list of lists) {
    if (list.length === 0 || candidates.length === 0) continue;
    const before = found.length;
    if (list.length * 16 < candidates.length) gallop(list, candidates, found);
    else merge(list, candidates, found);
    if (found.length > before) contributing += 1;
    if (found.length > limit) {
      truncated = true;
      break;
    }
  }
  let positions = Int32Array.from(found);
  if (contributing > 1) {
    positions.sort();
    let kept = 0;
    for (let index = 0; index < positions.length; index += 1) if (index === 0 || positions[index] !== positions[index - 1]) positions[kept++] = positions[index]!;
    positions = positions.subarray(0, kept);
  }
  if (positions.length > limit) positions = positions.subarray(0, limit);
  return { positions, truncated };
}

function merge(list: Int32Array, candidates: Int32Array, found: number[]): void {
  let i = 0;
  let j = 0;
  while (i < list.length && j < candidates.length) {
    const a = list[i]!;
    const b = candidates[j]!;
    if (a < b) i += 1;
    else if (a > b) j += 1;
    else {
      found.push(j);
      i += 1;
      j += 1;
    }
  }
}

/** For each of the few in `list`, an exponential then binary search in `candidates` from the last place. */
function gallop(list: Int32Array, candidates: Int32Array, found: number[]): void {
  let low = 0;
  for (let i = 0; i < list.length && low < candidates.length; i += 1) {
    const wanted = list[i]!;
    let step = 1;
    let high = low;
    while (high < candidates.length && candidates[high]! < wanted) {
      low = high + 1;
      high += step;
      step *= 2;
    }
    if (high > candidates.length - 1) high = candidates.length - 1;
    // The first position in [low, high] holding at least `wanted`.
    while (low < high) {
      const middle = (low + high) >> 1;
      if (candidates[middle]! < wanted) low = middle + 1;
      else high = middle;
    }
    if (low < candidates.length && candidates[low] === wanted) {
      found.push(low);
      low += 1;
    }
  }
}
