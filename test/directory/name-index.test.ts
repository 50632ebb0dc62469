import { describe, expect, it } from 'vitest';
import { ChangingNames } from '../../src/directory/read-model/changing-names.js';
import { NameIndex, tierRuns, type IndexedName } from '../../src/directory/read-model/name-index.js';
import { ReadablePositions } from '../../src/directory/read-model/readable-entries.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { nameKeys } from '../../src/directory/search-keys.js';
import { emailLocalPart, matchTier, textsTier } from '../../src/directory/search-ranking.js';

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

describe('a large index built again in slices', () => {
  const SYLLABLES = ['an', 'mei', 'zhang', 'li', 'ann', 'plan', 'jo', 'smith', 'han', 'lee', 'wei', 'qing'];
  const HAN = ['韩', '梅', '张', '三', '重', '庆', '李', '王'];
  let state = 7;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const nameOf = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => (next() < 0.3 ? pick(HAN) + pick(HAN) : pick(SYLLABLES))).join(next() < 0.5 ? ' ' : '');
  const entryOf = (id: string, name: string): IndexedName => {
    const keys = nameKeys(name);
    return { id, texts: next() < 0.3 ? [name, pick(SYLLABLES)] : [name], keys: [keys.pinyin, keys.initials] };
  };
  /** Names over `entries`, built again in slices of one step each, run when the test says (`slices`). */
  const slicedNames = (entries: Map<string, IndexedName>) => {
    const slices: Array<() => boolean> = [];
    const names = new ChangingNames(() => [...entries.values()], { slicedFrom: 0, sliceMs: 0, schedule: (slice) => slices.push(slice) });
    return { names, slices, first: names.prepare() };
  };

  it('answers from the index it has, with what is written meanwhile, until the new one is in place', () => {
    const people = new Map<string, IndexedName>();
    for (let number = 0; number < 3_000; number += 1) people.set(`u${number}`, entryOf(`u${number}`, nameOf()));
    const { names, slices, first } = slicedNames(people);
    const keywords = ['a', 'an', 'mei', 'zhang', 'li', 'ann', 'han', 'hm', 'zs', '梅', '韩梅', 'qing', 'plan', 'smith', 'anmei', 'x'].map(normaliseKeyword);
    let added = 0;
    const write = () => {
      const roll = next();
      const id = roll < 0.1 ? `new${added++}` : `u${Math.floor(next() * 3_000)}`;
      if (roll > 0.9) people.delete(id);
      else people.set(id, entryOf(id, nameOf()));
      names.touch(id);
      return id;
    };
    /** Every keyword finds exactly the people whose texts match it now. */
    const expectAnswersAsWritten = (when: string) => {
      for (const keyword of keywords) {
        const { ids } = names.candidates(keyword, Number.POSITIVE_INFINITY);
        expect(new Set(ids).size, `${when}: ${keyword.text} lists each once`).toBe(ids.length);
        const matches = (entry: IndexedName | undefined) =>
          entry !== undefined && textsTier(keyword, entry.texts[0], entry.texts[1] ?? null, entry.keys[0], entry.keys[1]) !== null;
        const found = ids.filter((id) => matches(people.get(id))).sort();
        const expected = [...people.values()]
          .filter((entry) => matches(entry))
          .map((entry) => entry.id)
          .sort();
        expect(found, `${when}: ${keyword.text}`).toEqual(expected);
      }
    };

    // Writes up to the changes kept beside the index (512) are checked one by one; the next starts a build.
    for (let count = 0; count < 512 && slices.length === 0; count += 1) write();
    expect(slices).toHaveLength(0);
    while (slices.length === 0) write();
    expect(names.current().index, 'no build on the write or on the next search').toBe(first);
    expectAnswersAsWritten('at the start of the build');

    // The build goes in many slices, with writes and searches between them.
    const writtenDuringBuild = new Set<string>();
    let sliceCount = 0;
    for (let done = false; !done;) {
      done = slices[0]!();
      sliceCount += 1;
      if (done) break;
      expect(names.current().index, `slice ${sliceCount}`).toBe(first);
      for (let count = 0; count < 3; count += 1) writtenDuringBuild.add(write());
      expectAnswersAsWritten(`after slice ${sliceCount}`);
    }
    expect(sliceCount).toBeGreaterThan(10);
    const built = names.current();
    expect(built.index).not.toBe(first);
    // Only what was written during the build is checked one by one now.
    expect(new Set(built.changed)).toEqual(writtenDuringBuild);
    expectAnswersAsWritten('after the build');
    for (let count = 0; count < 50; count += 1) write();
    expectAnswersAsWritten('after more writes');
  });

  it('moves written during the build are moves of the new index; a forgotten build is not put in place', () => {
    const files = new Map<string, IndexedName>();
    for (let number = 0; number < 2_000; number += 1) files.set(`f${number}`, entryOf(`f${number}`, nameOf()));
    const { names, slices, first } = slicedNames(files);
    for (let number = 0; slices.length === 0; number += 1) {
      files.set(`f${number}`, entryOf(`f${number}`, `renamed ${number}`));
      names.touch(`f${number}`);
    }
    names.move('f1999', '2026-03-01T09:00:00Z');
    names.move('f1998', '2026-03-01T09:00:05Z');
    names.move('f1999', '2026-03-01T09:00:10Z');
    // Moved, then renamed: checked one by one, not moved.
    names.move('f1997', '2026-03-01T09:00:07Z');
    names.touch('f1997');
    while (!slices[0]!());
    const { index, moved, movedAt, changed } = names.current();
    expect(index).not.toBe(first);
    expect(moved.map((number) => index.ids[number])).toEqual(['f1999', 'f1998']);
    expect(movedAt).toEqual(['2026-03-01T09:00:10Z', '2026-03-01T09:00:05Z']);
    expect([...changed]).toEqual(['f1997']);

    // A build forgotten (the model reloaded) before it ends is dropped.
    for (let number = 0; slices.length === 1; number += 1) names.touch(`f${number}`);
    slices[1]!();
    names.forget();
    const reloaded = names.prepare();
    while (!slices[1]!());
    expect(names.current().index).toBe(reloaded);
  });
});
