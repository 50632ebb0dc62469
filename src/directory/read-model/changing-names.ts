import type { SearchKeyword } from '../search-keyword.js';
import { NameIndex, type IndexedName, type NameColumns, type Posting } from './name-index.js';

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
 * How an index too large to build at once is built again: `slice` does some of the work and answers
 * whether it is done; the schedule calls it again until it is, each call between other work.
 */
export type RebuildSchedule = (slice: () => boolean) => void;

export interface ChangingNamesOptions {
  /** An index of at least this many entries is built again in slices (default 20,000); a smaller one at once, on next use. */
  slicedFrom?: number;
  /** How long one slice works, in milliseconds (default 4; 0: one step of the build). */
  sliceMs?: number;
  /** Default: each slice on its own turn of the event loop (`setImmediate`). */
  schedule?: RebuildSchedule;
}

/** A slice on each turn of the event loop, after the I/O already waiting: requests go between slices. */
const onEachTurn: RebuildSchedule = (slice) => {
  const turn = () => {
    if (!slice()) setImmediate(turn);
  };
  setImmediate(turn);
};

/** The index in place and what was written since it was built. */
export type IndexState = Omit<ChangingPosting, keyof Posting>;

/**
 * The entries to build an index of, in the order it numbers them, read as the build goes (a build in
 * slices reads them over many turns of the event loop). Built again in slices, `since` is the index in
 * place and what was written since it was built, as it stands at each read: an order may be taken from
 * it, with only the entries written since sorted again. An entry written during the build is stale in it
 * by the time it is read (and checked one by one after the build).
 */
export type EntriesSource = (since?: IndexState) => Iterable<IndexedName>;

/** A build of the index under way, and what was written since it began. */
interface Rebuild {
  building: Generator<void, NameIndex, void>;
  /** Ids touched since the build began: changed in the new index too. */
  touched: Set<string>;
  /** Ids moved since, each to its last time: moved in the new index too (unless touched: then checked one by one). */
  moved: Map<string, string>;
}

/**
 * A name index over a set that changes (a team's people or departments, the files): built on first
 * use, then the ids written since are kept aside and checked one by one (so a write costs nothing
 * here), and the index is built again once they are many. A large index (the files of a company, its
 * people) takes seconds to build: it is built again in slices between requests while the current one,
 * with what was written since, keeps answering (an import or a directory sync changes many at once).
 */
export class ChangingNames {
  private index: NameIndex | undefined;
  private readonly changed = new Set<string>();
  private readonly moved: number[] = [];
  private readonly movedAt: string[] = [];
  /** Per moved entry, the time it is listed at in `movedAt`: a file moved again is listed once, at its last time. */
  private readonly movedTo = new Map<number, string>();
  private stale = new Uint8Array(0);
  private rebuild: Rebuild | undefined;
  /** A first build under way elsewhere (`startBuild`): the ids written since it read its entries. */
  private pending: Set<string> | undefined;
  private readonly slicedFrom: number;
  private readonly sliceMs: number;
  private readonly schedule: RebuildSchedule;

  constructor(
    private readonly entries: EntriesSource,
    options: ChangingNamesOptions = {},
  ) {
    this.slicedFrom = options.slicedFrom ?? 20_000;
    this.sliceMs = options.sliceMs ?? 4;
    this.schedule = options.schedule ?? onEachTurn;
  }

  /** The candidate `id` changed (added, renamed, moved, removed). */
  touch(id: string): void {
    if (!this.index) {
      this.pending?.add(id);
      return;
    }
    this.rebuild?.touched.add(id);
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
    if (!this.index) {
      // Checked one by one once the build is in place.
      this.pending?.add(id);
      return;
    }
    this.rebuild?.moved.set(id, at);
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
    if (this.rebuild || this.changed.size + this.moved.length <= Math.max(CHANGES_KEPT, this.index!.size / 8)) return;
    if (this.index!.size < this.slicedFrom) this.forget();
    else this.rebuildInSlices();
  }

  /** Builds the index again in slices; the current one, with what is written meanwhile, answers until then. */
  private rebuildInSlices(): void {
    const rebuild: Rebuild = { building: NameIndex.building(this.entries(this.current())), touched: new Set(), moved: new Map() };
    this.rebuild = rebuild;
    this.schedule(() => {
      // Forgotten meanwhile (a reload): this build is of entries gone.
      if (this.rebuild !== rebuild) return true;
      const until = performance.now() + this.sliceMs;
      let step = rebuild.building.next();
      while (!step.done && performance.now() < until) step = rebuild.building.next();
      if (!step.done) return false;
      this.rebuild = undefined;
      this.use(step.value);
      // What was written while it was built is checked one by one again, as after any build; a moved
      // entry the build left out (stale when read) is checked one by one too.
      for (const id of rebuild.touched) this.touch(id);
      for (const [id, at] of rebuild.moved) {
        if (this.index?.numberOf(id) === undefined) this.touch(id);
        else this.move(id, at);
      }
      return true;
    });
  }

  /** Puts a built index in place, with nothing changed since. */
  private use(index: NameIndex): void {
    this.index = index;
    this.stale = new Uint8Array(index.size);
    this.changed.clear();
    this.moved.length = 0;
    this.movedAt.length = 0;
    this.movedTo.clear();
  }

  /** Builds the index now (after a load), so no search pays for it. */
  prepare(): NameIndex {
    if (!this.index) this.use(NameIndex.build(this.entries()));
    return this.index!;
  }

  /**
   * The entries of a first build made elsewhere (another thread), or undefined when an index is in place;
   * `finishBuild` puts that build in place, with what was written since checked one by one.
   */
  startBuild(): NameColumns | undefined {
    if (this.index) return undefined;
    this.pending = new Set();
    return NameIndex.columnsOf(this.entries());
  }

  /** Puts the index of `startBuild`'s entries in place, unless one is there already or the build was forgotten meanwhile. */
  finishBuild(index: NameIndex): void {
    const pending = this.pending;
    this.pending = undefined;
    if (this.index || pending === undefined) return;
    this.use(index);
    for (const id of pending) this.touch(id);
  }

  /** The keyword's postings (see `NameIndex.lookup`), whose stale entries the caller skips. */
  lookup(keyword: SearchKeyword): ChangingPosting {
    return { ...this.prepare().lookup(keyword), ...this.current() };
  }

  /** The index, its stale entries and the ids changed since it was built. */
  current(): IndexState {
    return { index: this.prepare(), stale: this.stale, changed: this.changed, moved: this.moved, movedAt: this.movedAt };
  }

  forget(): void {
    this.index = undefined;
    this.rebuild = undefined;
    this.pending = undefined;
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
