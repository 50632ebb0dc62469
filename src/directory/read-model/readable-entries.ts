import type { NameIndex } from './name-index.js';
import { ascending } from './number-order.js';

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
 * The positions in `candidates` (ascending entry numbers) of the entries in any of `lists` (each
 * ascending), a stretch of candidates at a time, so a search that has what it needs stops walking. Each
 * list keeps its place between stretches; it is merged along the candidates, or galloped into them when
 * it is much shorter.
 */
export class ReadablePositions {
  /** Per list, the first item not yet matched against the candidates. */
  private readonly places: Int32Array;
  /** The first position not yet walked. */
  private position = 0;

  constructor(
    private readonly candidates: Int32Array,
    private readonly lists: readonly Int32Array[],
  ) {
    this.places = new Int32Array(lists.length);
  }

  get done(): boolean {
    return this.position >= this.candidates.length;
  }

  /** How many candidates were walked. */
  get walked(): number {
    return this.position;
  }

  /** Appends the readable positions among the next `count` candidates to `out`, ascending, each once. */
  next(count: number, out: number[]): void {
    const { candidates, lists, places } = this;
    const from = this.position;
    const end = Math.min(candidates.length, from + count);
    this.position = end;
    if (from >= end) return;
    const start = out.length;
    let contributing = 0;
    for (let index = 0; index < lists.length; index += 1) {
      const list = lists[index]!;
      if (places[index]! >= list.length) continue;
      const before = out.length;
      places[index] = list.length * 16 < candidates.length ? gallop(list, places[index]!, candidates, from, end, out) : merge(list, places[index]!, candidates, from, end, out);
      if (out.length > before) contributing += 1;
    }
    if (contributing > 1) {
      const found = out.splice(start).sort(ascending);
      for (let index = 0; index < found.length; index += 1) if (index === 0 || found[index] !== found[index - 1]) out.push(found[index]!);
    }
  }
}

/** Merges `list` from `place` with `candidates[from, end)`; returns the list's place after. */
function merge(list: Int32Array, place: number, candidates: Int32Array, from: number, end: number, out: number[]): number {
  let i = place;
  let j = from;
  while (i < list.length && j < end) {
    const a = list[i]!;
    const b = candidates[j]!;
    if (a < b) i += 1;
    else if (a > b) j += 1;
    else {
      out.push(j);
      i += 1;
      j += 1;
    }
  }
  return i;
}

/**
 * For each item of `list` from `place` up to the last candidate of the stretch, an exponential then
 * binary search in `candidates[from, end)` from the last place found; returns the list's place after.
 */
function gallop(list: Int32Array, place: number, candidates: Int32Array, from: number, end: number, out: number[]): number {
  const last = candidates[end - 1]!;
  let low = from;
  let i = place;
  for (; i < list.length && low < end; i += 1) {
    const wanted = list[i]!;
    if (wanted > last) break;
    let step = 1;
    let high = low;
    while (high < end && candidates[high]! < wanted) {
      low = high + 1;
      high += step;
      step *= 2;
    }
    if (high > end - 1) high = end - 1;
    // The first position in [low, high] holding at least `wanted`.
    while (low < high) {
      const middle = (low + high) >> 1;
      if (candidates[middle]! < wanted) low = middle + 1;
      else high = middle;
    }
    if (low < end && candidates[low] === wanted) {
      out.push(low);
      low += 1;
    }
  }
  return i;
}
