import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ChangingNames } from '../../src/directory/read-model/changing-names.js';
import { NameIndex, type IndexedName } from '../../src/directory/read-model/name-index.js';
import { buildInThread } from '../../src/directory/read-model/name-index-threads.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { nameKeys } from '../../src/directory/search-keys.js';
import { emailLocalPart } from '../../src/directory/search-ranking.js';

const NAMES = ['Ann Lee', '韩梅梅', '张三', 'Joann Smith', '重庆 Plan', '𝒜lpha', 'an', '李雷', 'Dana Ma', '梅'];

/** People enough that every gram list is long: names with a number, some with an e-mail. */
const entries: IndexedName[] = Array.from({ length: 3_000 }, (_, number) => {
  const name = `${NAMES[number % NAMES.length]!} ${number % 97}`.toLowerCase();
  const keys = nameKeys(name);
  return { id: `u${number}`, texts: number % 3 === 0 ? [name] : [name, emailLocalPart(`p${number}.x@example.com`)], keys: [keys.pinyin, keys.initials] };
});

/** Keywords worth trying: every piece of 1 to 4 code points of entries across the list (its last included), and misses. */
function keywords(): string[] {
  const found = new Set(['x', 'zz', 'qqq', 'hanmeimei', 'p3.x']);
  for (const entry of entries.filter((_, number) => number < 20 || number % 61 === 0 || number >= entries.length - 20)) {
    for (const text of [...entry.texts, ...entry.keys]) {
      const chars = [...text];
      for (let start = 0; start < chars.length; start += 1)
        for (let length = 1; length <= 4 && start + length <= chars.length; length += 1) found.add(chars.slice(start, start + length).join(''));
    }
  }
  return [...found].filter((piece) => piece.trim() === piece && piece !== '');
}

/** What a search reads of an index: each keyword's posting, and each id's number. */
function answers(index: NameIndex) {
  return {
    postings: keywords().map((text) => {
      const posting = index.lookup(normaliseKeyword(text));
      return { text, entries: [...posting.entries], tiers: [...posting.tiers], exact: posting.exact, bounding: posting.bounding };
    }),
    numbers: entries.map((entry) => index.numberOf(entry.id)),
    tiers: ['an', 'ma', 'p29', 'hmm'].map((text) => Array.from({ length: index.size }, (_, entry) => index.tierOf(entry, normaliseKeyword(text)))),
  };
}

describe('a name index built in a thread of its own', () => {
  const here = NameIndex.build(entries);

  it('answers every keyword as the index built here does', async () => {
    const columns = NameIndex.columnsOf(entries);
    const built = await buildInThread([columns, NameIndex.columnsOf(entries.slice(0, 7))], { fromEntries: 0 });
    expect(built.threadFailure).toBeUndefined();
    expect(built.indexes).toHaveLength(2);
    expect(answers(built.indexes[0]!)).toEqual(answers(here));
    expect(built.indexes[1]!.size).toBe(7);
    expect(answers(built.indexes[1]!).postings).toEqual(answers(NameIndex.build(entries.slice(0, 7))).postings);
  });

  it('is built here, the same, when its thread cannot start, and says why', async () => {
    const built = await buildInThread([NameIndex.columnsOf(entries)], { thread: new URL('./no-such-thread.js', import.meta.url), fromEntries: 0 });
    expect(built.threadFailure).toBeInstanceOf(Error);
    expect(answers(built.indexes[0]!)).toEqual(answers(here));
  });

  it('is built here, the same, when its thread stops or answers something else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'name-index-thread-'));
    try {
      const stops = join(dir, 'stops.mjs');
      writeFileSync(stops, "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => process.exit(3));\n");
      const wrong = join(dir, 'wrong.mjs');
      writeFileSync(wrong, "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => parentPort.postMessage([{ grams: ['x'] }]));\n");
      const hanging = await buildInThread([NameIndex.columnsOf(entries)], { thread: pathToFileURL(stops), fromEntries: 0 });
      expect(String(hanging.threadFailure)).toMatch(/exit code 3/);
      expect(answers(hanging.indexes[0]!)).toEqual(answers(here));
      const answeredWrong = await buildInThread([NameIndex.columnsOf(entries), NameIndex.columnsOf(entries)], { thread: pathToFileURL(wrong), fromEntries: 0 });
      expect(answeredWrong.threadFailure).toBeInstanceOf(Error);
      expect(answeredWrong.indexes.map(answers)).toEqual([answers(here), answers(here)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is built here, the same, when its thread does not answer in time; a build no longer wanted rejects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'name-index-thread-'));
    try {
      const silent = join(dir, 'silent.mjs');
      writeFileSync(silent, "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => setInterval(() => {}, 1000));\n");
      const late = await buildInThread([NameIndex.columnsOf(entries)], { thread: pathToFileURL(silent), fromEntries: 0, timeoutMs: 5 });
      expect(String(late.threadFailure)).toMatch(/did not answer within 5 ms/);
      expect(answers(late.indexes[0]!)).toEqual(answers(here));
      const closing = new AbortController();
      const unwanted = buildInThread([NameIndex.columnsOf(entries)], { thread: pathToFileURL(silent), fromEntries: 0, signal: closing.signal });
      closing.abort();
      await expect(unwanted).rejects.toThrow('no longer wanted');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is not started for a few names: they are indexed here', async () => {
    const built = await buildInThread([NameIndex.columnsOf(entries)], { thread: new URL('./no-such-thread.js', import.meta.url) });
    expect(built.threadFailure).toBeUndefined();
    expect(answers(built.indexes[0]!)).toEqual(answers(here));
  });

  it('keeps its postings through packing: one piece back to the same index', () => {
    const columns = NameIndex.columnsOf(entries);
    expect([...NameIndex.entriesOf(columns)]).toEqual(entries);
    expect(answers(NameIndex.fromParts(columns, here.packedPostings()))).toEqual(answers(here));
  });
});

describe('a first build made elsewhere', () => {
  const people = new Map(entries.slice(0, 200).map((entry) => [entry.id, entry]));
  const names = () => new ChangingNames(() => people.values());

  it('is put in place with the names written while it was built checked one by one', () => {
    const changing = names();
    const columns = changing.startBuild()!;
    expect(columns.ids).toHaveLength(200);
    // Written meanwhile: u1 renamed, u2 moved; the built index still holds their old entries.
    changing.touch('u1');
    changing.move('u2', '2026-11-27T12:00:00.000Z');
    changing.finishBuild(NameIndex.build(NameIndex.entriesOf(columns)));
    const { ids } = changing.candidates(normaliseKeyword('an'), 1_000);
    expect(ids.filter((id) => id === 'u1' || id === 'u2').sort()).toEqual(['u1', 'u2']);
    expect(changing.current().changed).toEqual(new Set(['u1', 'u2']));
    // Nothing else was written: a name not touched is answered from the index.
    expect(changing.current().changed.has('u4')).toBe(false);
  });

  it('is not put in place when the names were forgotten meanwhile (a reload), nor over an index built since', () => {
    const forgotten = names();
    const columns = forgotten.startBuild()!;
    forgotten.forget();
    const stale = NameIndex.build(NameIndex.entriesOf({ ...columns, ids: columns.ids.map((id) => `old-${id}`) }));
    forgotten.finishBuild(stale);
    expect(forgotten.current().index).not.toBe(stale);

    const overtaken = names();
    const started = overtaken.startBuild()!;
    const first = overtaken.prepare();
    overtaken.finishBuild(NameIndex.build(NameIndex.entriesOf(started)));
    expect(overtaken.current().index).toBe(first);
    expect(overtaken.startBuild()).toBeUndefined();
  });
});
