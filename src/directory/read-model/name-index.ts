import type { SearchKeyword } from '../search-keyword.js';

/** What one candidate is found by: its texts (name, e-mail local part, lower case) and pinyin keys. */
export interface IndexedName {
  id: string;
  /** Matched anywhere (tiers 0 to 2). */
  texts: readonly string[];
  /** Full pinyin and initials: matched at the start (tier 3), or anywhere for 3+ characters (tier 4). */
  keys: readonly string[];
}

/**
 * The candidates of a keyword among a fixed set of names, found in postings of n-grams (code points):
 * every 1-, 2- and 3-gram of the texts, the 1- and 2-character prefixes of the pinyin keys and every
 * 3-gram of them. A keyword of 1 or 2 characters is looked up as one gram; a longer one by its rarest
 * 3-gram. Every candidate a tier can match is among them (src/directory/search-ranking.ts); the caller
 * checks each with `matchTier`. Postings are Int32Arrays of entry numbers, ascending.
 */
export class NameIndex {
  private constructor(
    readonly ids: readonly string[],
    private readonly postings: ReadonlyMap<string, Int32Array>,
  ) {}

  static build(entries: readonly IndexedName[]): NameIndex {
    const lists = new Map<string, number[]>();
    // Entries come in order, so a gram met twice in one entry is the list's last number already.
    let number = 0;
    const add = (gram: string) => {
      const list = lists.get(gram);
      if (!list) lists.set(gram, [number]);
      else if (list[list.length - 1] !== number) list.push(number);
    };
    for (; number < entries.length; number += 1) {
      const entry = entries[number]!;
      for (const text of entry.texts) addGrams(add, [...text], 3);
      for (const key of entry.keys) {
        const chars = [...key];
        if (chars.length > 0) add(chars[0]!);
        if (chars.length > 1) add(chars[0]! + chars[1]!);
        addTrigrams(add, chars);
      }
    }
    const postings = new Map<string, Int32Array>();
    for (const [gram, list] of lists) postings.set(gram, Int32Array.from(list));
    return new NameIndex(entries.map((entry) => entry.id), postings);
  }

  get size(): number {
    return this.ids.length;
  }

  /** The entries that may match a non-empty keyword (a superset of the matches), ascending. */
  candidates(keyword: SearchKeyword): Int32Array {
    const chars = [...keyword.text];
    if (chars.length <= 2) return this.postings.get(keyword.text) ?? EMPTY;
    let best: Int32Array | undefined;
    for (let start = 0; start + 3 <= chars.length; start += 1) {
      const list = this.postings.get(chars[start]! + chars[start + 1]! + chars[start + 2]!);
      if (!list) return EMPTY;
      if (!best || list.length < best.length) best = list;
    }
    return best ?? EMPTY;
  }
}

const EMPTY = new Int32Array(0);

function addGrams(add: (gram: string) => void, chars: readonly string[], longest: number): void {
  for (let start = 0; start < chars.length; start += 1) {
    let gram = '';
    for (let length = 1; length <= longest && start + length <= chars.length; length += 1) {
      gram += chars[start + length - 1]!;
      add(gram);
    }
  }
}

function addTrigrams(add: (gram: string) => void, chars: readonly string[]): void {
  for (let start = 0; start + 3 <= chars.length; start += 1) add(chars[start]! + chars[start + 1]! + chars[start + 2]!);
}
