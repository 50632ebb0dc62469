import type { SearchKeyword } from '../search-keyword.js';
import { MATCH_TIERS, textsTier, type MatchTier } from '../search-ranking.js';

/** What one candidate is found by: its texts (name, e-mail local part, lower case) and pinyin keys. */
export interface IndexedName {
  id: string;
  /** Matched anywhere (tiers 0 to 2): the name, and for people the e-mail local part (at most two). */
  texts: readonly [string] | readonly [string, string];
  /** Full pinyin and initials: matched at the start (tier 3), or anywhere for 3+ characters (tier 4). */
  keys: readonly [string, string];
}

/**
 * One keyword's postings: entry numbers grouped by tier, best first, ascending within a tier (`tiers`
 * gives each one's tier). For keywords of up to three characters (a posting of the keyword itself) the
 * tiers are the keyword's and every entry matches (`exact`); a longer keyword gets the posting of one
 * of its 3-grams, a superset of its matches to check one by one with `matchTier`.
 */
export interface Posting {
  entries: Int32Array;
  tiers: Uint8Array;
  exact: boolean;
  /** Each entry's tier here is at most its tier for the keyword (0 and 1 taken as one). */
  bounding: boolean;
}

/**
 * The entries of an index as columns (what a build reads, in its order): what a build in another thread
 * is sent (src/directory/read-model/name-index-threads.ts).
 */
export interface NameColumns {
  ids: string[];
  names: string[];
  locals: (string | null)[];
  pinyins: string[];
  initials: string[];
}

/** An index's postings in one piece: the grams in order, where each one's entries start (and the last ends), the entries and their tiers. */
export interface PackedPostings {
  grams: string[];
  starts: Int32Array;
  entries: Int32Array;
  tiers: Uint8Array;
}

/** `building` yields after every 256 entries, and after each gram that brings the items sorted since to 8,192. */
const STEP_MASK = 255;
const STEP_ITEMS = 8_192;

/** The longest keyword whose posting is exact (its own gram). */
const EXACT_CHARS = 3;

/**
 * The candidates of a keyword among a fixed set of names, found in postings of n-grams (code points):
 * every 1-, 2- and 3-gram of the texts, the 1- and 2-character prefixes of the pinyin keys and every
 * 3-gram of them, each posting with the tier (src/directory/search-ranking.ts) its gram, taken as the
 * keyword, has on each entry: 0 a whole text, 1 a text's start, 2 inside a text, 3 a key's start, 4
 * inside a key (3-grams only: shorter keywords do not match inside keys). A keyword of 1 to 3
 * characters is its own posting, exact with tiers; a longer one is looked up by one of its 3-grams
 * (see `lookup`) and the caller checks each candidate with `matchTier`. Postings are Int32Arrays of entry numbers, by
 * tier, then ascending.
 */
export class NameIndex {
  private constructor(
    readonly ids: readonly string[],
    private readonly postings: ReadonlyMap<string, Int32Array>,
    private readonly tiers: ReadonlyMap<string, Uint8Array>,
    private readonly numbers: ReadonlyMap<string, number>,
    // Each entry's texts and keys, kept so that `tierOf` checks a candidate with no allocation.
    private readonly names: readonly string[],
    private readonly locals: readonly (string | null)[],
    private readonly pinyins: readonly string[],
    private readonly initials: readonly string[],
  ) {}

  static build(entries: Iterable<IndexedName>): NameIndex {
    const building = NameIndex.building(entries);
    for (;;) {
      const step = building.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `build` in steps: the generator yields every few hundred entries or few thousand posted numbers
   * (a few tenths of a millisecond of work) and returns the index, so that a large index is built between requests
   * (changing-names.ts) instead of holding the event loop for seconds. `entries` is read as it goes.
   */
  static *building(entries: Iterable<IndexedName>): Generator<void, NameIndex, void> {
    // Each list holds number * 8 + tier; entries come in order, so a gram met twice in one entry is
    // the list's last item already (then the better tier is kept).
    const lists = new Map<string, number[]>();
    let number = 0;
    const add = (gram: string, tier: number) => {
      const list = lists.get(gram);
      if (!list) lists.set(gram, [number * 8 + tier]);
      else {
        const last = list[list.length - 1]!;
        if (last >> 3 !== number) list.push(number * 8 + tier);
        else if ((last & 7) > tier) list[list.length - 1] = number * 8 + tier;
      }
    };
    const columns = emptyColumns();
    const numbers = new Map<string, number>();
    for (const entry of entries) {
      for (const text of entry.texts) addTextGrams(add, [...text]);
      for (const key of entry.keys) {
        const chars = [...key];
        if (chars.length > 0) add(chars[0]!, MATCH_TIERS.pinyinPrefix);
        if (chars.length > 1) add(chars[0]! + chars[1]!, MATCH_TIERS.pinyinPrefix);
        for (let start = 0; start + 3 <= chars.length; start += 1) {
          add(chars[start]! + chars[start + 1]! + chars[start + 2]!, start === 0 ? MATCH_TIERS.pinyinPrefix : MATCH_TIERS.pinyinSubstring);
        }
      }
      addColumns(columns, entry);
      numbers.set(entry.id, number);
      number += 1;
      if ((number & STEP_MASK) === 0) yield;
    }
    const postings = new Map<string, Int32Array>();
    const tiers = new Map<string, Uint8Array>();
    const starts = new Int32Array(6);
    let sorted = 0;
    for (const [gram, list] of lists) {
      // A counting sort by tier (the list is ascending by entry already).
      starts.fill(0);
      for (const item of list) starts[(item & 7) + 1] = starts[(item & 7) + 1]! + 1;
      for (let tier = 1; tier < starts.length; tier += 1) starts[tier] = starts[tier]! + starts[tier - 1]!;
      const gramNumbers = new Int32Array(list.length);
      const gramTiers = new Uint8Array(list.length);
      for (const item of list) {
        const position = starts[item & 7]!;
        starts[item & 7] = position + 1;
        gramNumbers[position] = item >> 3;
        gramTiers[position] = item & 7;
      }
      postings.set(gram, gramNumbers);
      tiers.set(gram, gramTiers);
      // A step sorts a few thousand numbers: the first grams met (single letters) hold most entries.
      sorted += list.length + 16;
      if (sorted >= STEP_ITEMS) {
        sorted = 0;
        yield;
      }
    }
    return new NameIndex(columns.ids, postings, tiers, numbers, columns.names, columns.locals, columns.pinyins, columns.initials);
  }

  /** The entries as columns, in the order a build numbers them. */
  static columnsOf(entries: Iterable<IndexedName>): NameColumns {
    const columns = emptyColumns();
    for (const entry of entries) addColumns(columns, entry);
    return columns;
  }

  /** The entries of `columns` again. */
  static *entriesOf(columns: NameColumns): Iterable<IndexedName> {
    for (let number = 0; number < columns.ids.length; number += 1) {
      const local = columns.locals[number];
      yield {
        id: columns.ids[number]!,
        texts: local === null || local === undefined ? [columns.names[number]!] : [columns.names[number]!, local],
        keys: [columns.pinyins[number]!, columns.initials[number]!],
      };
    }
  }

  /** The index of `columns` whose postings were built elsewhere (`packedPostings` of an index of the same columns). */
  static fromParts(columns: NameColumns, packed: PackedPostings): NameIndex {
    const numbers = new Map<string, number>();
    for (let number = 0; number < columns.ids.length; number += 1) numbers.set(columns.ids[number]!, number);
    const postings = new Map<string, Int32Array>();
    const tiers = new Map<string, Uint8Array>();
    // Views of the two arrays: one buffer each instead of one per gram.
    for (let gram = 0; gram < packed.grams.length; gram += 1) {
      postings.set(packed.grams[gram]!, packed.entries.subarray(packed.starts[gram], packed.starts[gram + 1]));
      tiers.set(packed.grams[gram]!, packed.tiers.subarray(packed.starts[gram], packed.starts[gram + 1]));
    }
    return new NameIndex(columns.ids, postings, tiers, numbers, columns.names, columns.locals, columns.pinyins, columns.initials);
  }

  /** The postings in one piece, for `fromParts`. */
  packedPostings(): PackedPostings {
    let total = 0;
    for (const list of this.postings.values()) total += list.length;
    const grams: string[] = [];
    const starts = new Int32Array(this.postings.size + 1);
    const entries = new Int32Array(total);
    const tiers = new Uint8Array(total);
    let at = 0;
    for (const [gram, list] of this.postings) {
      starts[grams.length] = at;
      grams.push(gram);
      entries.set(list, at);
      tiers.set(this.tiers.get(gram)!, at);
      at += list.length;
    }
    starts[grams.length] = at;
    return { grams, starts, entries, tiers };
  }

  /**
   * The tier of entry `entry` for a non-empty keyword, or null (`matchTier` on the texts it was built
   * from); `floor`, a tier it cannot beat (see `floorOf`), spares the checks of the better ones.
   */
  tierOf(entry: number, keyword: SearchKeyword, floor: MatchTier = MATCH_TIERS.exact): MatchTier | null {
    return textsTier(keyword, this.names[entry]!, this.locals[entry] ?? null, this.pinyins[entry]!, this.initials[entry]!, floor);
  }

  get size(): number {
    return this.ids.length;
  }

  /** The entry number of `id` (undefined: not in the index). */
  numberOf(id: string): number | undefined {
    return this.numbers.get(id);
  }

  /** The entries that may match a non-empty keyword (see `Posting`). */
  lookup(keyword: SearchKeyword): Posting {
    const chars = [...keyword.text];
    if (chars.length <= EXACT_CHARS) return this.posting(keyword.text, true, true);
    // A longer keyword matches only entries holding each of its 3-grams. Its first 3-gram's tier on an
    // entry is at most the keyword's (taking 0 and 1 as one: a text that starts with the keyword starts
    // with the 3-gram), so walking that posting tier by tier may stop early; the rarest is used instead
    // when it is much shorter.
    const first = chars[0]! + chars[1]! + chars[2]!;
    let rarest = first;
    for (let start = 0; start + 3 <= chars.length; start += 1) {
      const gram = chars[start]! + chars[start + 1]! + chars[start + 2]!;
      const list = this.postings.get(gram);
      if (!list) return { entries: EMPTY, tiers: NO_TIERS, exact: false, bounding: true };
      if (list.length < this.postings.get(rarest)!.length) rarest = gram;
    }
    const rareEnough = this.postings.get(rarest)!.length * 4 < this.postings.get(first)!.length;
    return rareEnough ? this.posting(rarest, false, false) : this.posting(first, false, true);
  }

  /** The entries that may match a non-empty keyword (a superset of the matches), best tiers first. */
  candidates(keyword: SearchKeyword): Int32Array {
    return this.lookup(keyword).entries;
  }

  private posting(gram: string, exact: boolean, bounding: boolean): Posting {
    return { entries: this.postings.get(gram) ?? EMPTY, tiers: this.tiers.get(gram) ?? NO_TIERS, exact, bounding };
  }
}

/**
 * The best tier an entry of run `run` of a longer keyword's posting may have for the keyword: for a
 * bounding posting (of the keyword's first 3-gram), the run's (runs 0 and 1 as one: a text that
 * starts with the gram may start with the keyword); for another, none known.
 */
export function floorOf(posting: Posting, run: number): MatchTier {
  return posting.bounding && run >= MATCH_TIERS.substring ? (run as MatchTier) : MATCH_TIERS.exact;
}

/** Where each tier's run starts in a posting's `tiers` (ascending), and where the last ends: 6 numbers. */
export function tierRuns(tiers: Uint8Array): number[] {
  const runs = [0, 0, 0, 0, 0, tiers.length];
  for (let tier = 1; tier < 5; tier += 1) {
    let low = runs[tier - 1]!;
    let high = tiers.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (tiers[middle]! < tier) low = middle + 1;
      else high = middle;
    }
    runs[tier] = low;
  }
  return runs;
}

const emptyColumns = (): NameColumns => ({ ids: [], names: [], locals: [], pinyins: [], initials: [] });

/** The entry as the next row of `columns`. */
function addColumns(columns: NameColumns, entry: IndexedName): void {
  columns.ids.push(entry.id);
  columns.names.push(entry.texts[0]);
  columns.locals.push(entry.texts[1] ?? null);
  columns.pinyins.push(entry.keys[0]);
  columns.initials.push(entry.keys[1]);
}

const EMPTY = new Int32Array(0);
const NO_TIERS = new Uint8Array(0);

/** Every 1-, 2- and 3-gram of a text with its tier: the whole text 0, its start 1, inside 2. */
function addTextGrams(add: (gram: string, tier: number) => void, chars: readonly string[]): void {
  for (let start = 0; start < chars.length; start += 1) {
    let gram = '';
    for (let length = 1; length <= 3 && start + length <= chars.length; length += 1) {
      gram += chars[start + length - 1]!;
      add(gram, start > 0 ? MATCH_TIERS.substring : length === chars.length ? MATCH_TIERS.exact : MATCH_TIERS.prefix);
    }
  }
}
