import { describe, expect, it } from 'vitest';
import { ChangingNames } from '../../src/directory/read-model/changing-names.js';
import { NameIndex, tierRuns, type IndexedName } from '../../src/directory/read-model/name-index.js';
import { ReadablePositions } from '../../src/directory/read-model/readable-entries.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { nameKeys } from '../../src/directory/search-keys.js';
import { emailLocalPart, matchTier } from '../../src/directory/search-ranking.js';

const PEOPLE: Array<{ name: string; email: string | null }> = [
  { name: 'Ann', email: 'ann.lee@example.com' },
  { name: 'ann', email: null },
  { name: 'Joann Smith', email: 'js@example.com' },
  { name: '韩梅梅', email: 'hmm@example.com' },
  { name: '梅', email: null },
  { name: '张三', email: 'zhangsan@example.com' },
  { name: '𝒜lpha', email: 'alpha@example.com' },
  { name: 'an', email: 'nan@example.com' },
  { name: '重庆 Plan', email: null },
  { name: 'hmm', email: 'meimei@example.com' },
];

const entries: IndexedName[] = PEOPLE.map((person, number) => {
  const keys = nameKeys(person.name);
  const name = person.name.toLowerCase();
  return { id: `u${number}`, texts: person.email ? [name, emailLocalPart(person.email)] : [name], keys: [keys.pinyin, keys.initials] };
});

/** Every piece of 1 to 4 code points of the texts and keys: the keywords worth trying. */
function pieces(): string[] {
  const found = new Set<string>(['x', 'zz', 'qqq', 'hanmeimei', 'ann.lee']);
  for (const entry of entries) {
    for (const text of [...entry.texts, ...entry.keys]) {
      const chars = [...text];
      for (let start = 0; start < chars.length; start += 1)
        for (let length = 1; length <= 4 && start + length <= chars.length; length += 1) found.add(chars.slice(start, start + length).join(''));
    }
  }
  return [...found].filter((piece) => piece.trim() === piece && piece !== '');
}

describe('the name index', () => {
  const index = NameIndex.build(entries);

  it('holds, for a keyword of up to three characters, exactly the matches with their tiers, best tier first', () => {
    for (const text of pieces()) {
      const keyword = normaliseKeyword(text);
      const expected = PEOPLE.flatMap((person, number) => {
        const keys = nameKeys(person.name);
        const tier = matchTier(keyword, { name: person.name, email: person.email, pinyin: keys.pinyin, initials: keys.initials });
        return tier === null ? [] : [{ number, tier }];
      });
      const posting = index.lookup(keyword);
      const found = [...posting.entries].map((number, position) => ({ number, tier: posting.tiers[position]! }));
      if (keyword.length <= 3) {
        expect(posting.exact, text).toBe(true);
        expect(found, text).toEqual([...expected].sort((a, b) => a.tier - b.tier || a.number - b.number));
      } else {
        // A longer keyword: a superset of its matches, to check one by one.
        expect(posting.exact, text).toBe(false);
        for (const match of expected) {
          const position = posting.entries.indexOf(match.number);
          expect(position, text).toBeGreaterThanOrEqual(0);
          // Walking such a posting tier by tier may stop early: no later entry ranks better.
          if (posting.bounding) expect(Math.max(match.tier, 1), text).toBeGreaterThanOrEqual(posting.tiers[position]!);
        }
      }
      const runs = tierRuns(posting.tiers);
      for (let tier = 0; tier < 5; tier += 1)
        expect(
          [...posting.tiers.subarray(runs[tier], runs[tier + 1])].every((t) => t === tier),
          `${text} tier ${tier}`,
        ).toBe(true);
    }
  });

  it('finds each id by its entry number', () => {
    entries.forEach((entry, number) => expect(index.numberOf(entry.id)).toBe(number));
    expect(index.numberOf('nobody')).toBeUndefined();
  });
});

describe('the readable candidates of a keyword', () => {
  it('are the positions of the candidates held by any list, ascending, each once, in stretches of any length', () => {
    let state = 11;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const sortedSample = (size: number, share: number) => Int32Array.from(Array.from({ length: size }, (_, n) => n).filter(() => next() < share));
    for (const [size, candidateShare, listShares] of [
      [0, 0.5, [0.5]],
      [50, 0.5, [0.1, 0.5, 0.9]],
      [5000, 0.3, [0.001, 0.05, 0.2]],
      [5000, 0.01, [0.9, 0.001]],
      [5000, 0.5, []],
    ] as const) {
      const candidates = sortedSample(size, candidateShare);
      const lists = listShares.map((share) => sortedSample(size, share));
      const expected = [...candidates.keys()].filter((position) => lists.some((list) => list.includes(candidates[position]!)));
      for (const stretches of [[1e9], [1, 1, 2, 3, 5, 8, 13], [7], [256, 512]]) {
        const readable = new ReadablePositions(candidates, lists);
        const found: number[] = [];
        for (let at = 0; !readable.done; at += 1) {
          const before = found.length;
          readable.next(stretches[Math.min(at, stretches.length - 1)]!, found);
          // Each stretch adds only positions past those before it.
          if (before > 0 && found.length > before) expect(found[before]!, `${size}`).toBeGreaterThan(found[before - 1]!);
        }
        expect(found, `${size} in stretches ${stretches.join(',')}`).toEqual(expected);
      }
    }
  });
});

describe('names that change beside a built index', () => {
  it('lists a file moved again once, at its last time, and does not rebuild for one file saved many times', () => {
    const names = new ChangingNames(() => entries);
    const built = names.prepare();
    names.move('u1', '2026-03-01T09:00:00Z');
    names.move('u3', '2026-03-01T09:00:05Z');
    names.move('u2', '2026-03-01T09:00:00Z');
    // The same file saved again and again (more times than the changes kept beside the index).
    for (let second = 10; second < 2_000; second += 1)
      names.move('u1', `2026-03-01T10:${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}Z`);
    const { index, moved, movedAt } = names.current();
    expect(index).toBe(built);
    expect(moved.map((number) => index.ids[number])).toEqual(['u1', 'u3', 'u2']);
    expect(movedAt).toEqual(['2026-03-01T10:33:19Z', '2026-03-01T09:00:05Z', '2026-03-01T09:00:00Z']);
    // Moved back to a time another entry holds: listed after it, once.
    names.move('u1', '2026-03-01T09:00:00Z');
    expect(names.current().moved.map((number) => index.ids[number])).toEqual(['u3', 'u2', 'u1']);
  });
});
