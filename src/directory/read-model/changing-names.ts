import type { SearchKeyword } from '../search-keyword.js';
import { NameIndex, type IndexedName, type Posting } from './name-index.js';

/** A keyword's postings in the current index, and what was written since (see `ChangingNames.lookup`). */
export interface ChangingPosting extends Posting {
  index: NameIndex;
  /**
   * Per entry: 0 as built; 1 changed since (its postings are stale: checked one by one by id, in
   * `changed`); 2 moved (its texts are the index's but its place in the order of entries is not, a
   * file's `updatedAt`: ranked by its record, in `moved`).
   */
  stale: Uint8Array;
  /** The ids changed since: each to check one by one. */
  changed: ReadonlySet<string>;
  /**
   * The entries moved since, newest first by `movedAt`, the time each moved to (see `stale`; an entry
   * changed after it moved is in `changed` instead; one moved again is listed once, at its last time).
   */
  moved: readonly number[];
  movedAt: readonly string[];
}

/** Changes kept beside a built index before it is built again: at least this many, or an eighth of it. */
const CHANGES_KEPT = 512;

/**
 * A name index over a set that changes (a team's people or departments, the files): built on first
 * use, then the ids written since are kept aside and checked one by one (so a write costs nothing
 * here), and the index is built again once they are many.
 */
export class ChangingNames {
  private index: NameIndex | undefined;
  private readonly changed = new Set<string>();
  private readonly moved: number[] = [];
  private readonly movedAt: string[] = [];
  /** Per moved entry, the time it is listed at in `movedAt`: a file moved again is listed once, at its last time. */
  private readonly movedTo = new Map<number, string>();
  private stale = new Uint8Array(0);

  constructor(private readonly entries: () => IndexedName[]) {}

  /** The candidate `id` changed (added, renamed, moved, removed). */
  touch(id: string): void {
    if (!this.index) return;
    this.changed.add(id);
    const number = this.index.numberOf(id);
    if (number !== undefined) this.stale[number] = 1;
    this.forgetWhenMany();
  }

  /**
   * The candidate `id` keeps its texts but no longer has its place in the order the index numbers its
   * entries by (a file's `updatedAt`, search-state.ts): it is ranked by its record until the next build.
   */
  move(id: string, at: string): void {
    if (!this.index) return;
    const number = this.index.numberOf(id);
    // Not in the index (added since) or changed already: checked one by one anyway.
    if (number === undefined || this.stale[number] === 1) return;
    // Moved again (a file saved many times): its earlier place goes, so edits of one file never add up
    // to a rebuild of the whole index.
    if (this.stale[number] === 2) this.unlist(number);
    this.stale[number] = 2;
    this.movedTo.set(number, at);
    // Newest first: edits move files to now, so this is mostly the front.
    let low = 0;
    let high = this.movedAt.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.movedAt[middle]! >= at) low = middle + 1;
      else high = middle;
    }
    this.moved.splice(low, 0, number);
    this.movedAt.splice(low, 0, at);
    this.forgetWhenMany();
  }

  /** Takes the moved entry `number` out of `moved` and `movedAt`. */
  private unlist(number: number): void {
    const at = this.movedTo.get(number);
    if (at === undefined) return;
    // The first place listed at `at` or older (`movedAt` is newest first), then along the places at `at`.
    let low = 0;
    let high = this.movedAt.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.movedAt[middle]! > at) low = middle + 1;
      else high = middle;
    }
    for (let place = low; place < this.moved.length && this.movedAt[place] === at; place += 1) {
      if (this.moved[place] !== number) continue;
      this.moved.splice(place, 1);
      this.movedAt.splice(place, 1);
      return;
    }
  }

  private forgetWhenMany(): void {
    if (this.changed.size + this.moved.length > Math.max(CHANGES_KEPT, this.index!.size / 8)) this.forget();
  }

  /** Builds the index now (after a load), so no search pays for it. */
  prepare(): NameIndex {
    if (!this.index) {
      this.index = NameIndex.build(this.entries());
      this.stale = new Uint8Array(this.index.size);
    }
    return this.index;
  }

  /** The keyword's postings (see `NameIndex.lookup`), whose stale entries the caller skips. */
  lookup(keyword: SearchKeyword): ChangingPosting {
    return { ...this.prepare().lookup(keyword), ...this.current() };
  }

  /** The index, its stale entries and the ids changed since it was built. */
  current(): Omit<ChangingPosting, keyof Posting> {
    return { index: this.prepare(), stale: this.stale, changed: this.changed, moved: this.moved, movedAt: this.movedAt };
  }

  forget(): void {
    this.index = undefined;
    this.changed.clear();
    this.moved.length = 0;
    this.movedAt.length = 0;
    this.movedTo.clear();
  }

  /** How many candidates `candidates` would give without a bound (cheap: no id is read). */
  candidateCount(keyword: SearchKeyword): number {
    return this.prepare().candidates(keyword).length + this.changed.size;
  }

  /**
   * Ids that may match the non-empty keyword: at most `scan` index matches (`truncated` when it had
   * more), then every id changed since the index was built. Each id once; the caller checks each.
   */
  candidates(keyword: SearchKeyword, scan: number): { ids: string[]; truncated: boolean } {
    const index = this.prepare();
    const entries = index.candidates(keyword);
    const ids: string[] = [];
    const end = Math.min(entries.length, scan);
    for (let position = 0; position < end; position += 1) {
      const entry = entries[position]!;
      if (this.stale[entry] === 0) ids.push(index.ids[entry]!);
    }
    for (const id of this.changed) ids.push(id);
    return { ids, truncated: entries.length > scan };
  }
}
