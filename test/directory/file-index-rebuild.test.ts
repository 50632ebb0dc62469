import { expect, it } from 'vitest';
import { byNewest } from '../../src/directory/read-model/file-order.js';
import { SearchState } from '../../src/directory/read-model/search-state.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { nameKeys } from '../../src/directory/search-keys.js';
import { matchTier } from '../../src/directory/search-ranking.js';
import type { FileRecord, FileStatus } from '../../src/directory/types.js';
import { fileRecord } from './file-record.js';

function fileOf(id: string, name: string, updatedAt: string, status: FileStatus = 'active'): FileRecord {
  return fileRecord({ id, name, updatedAt, status });
}

const WORDS = ['plan', 'report', '报告', '计划', 'q3', 'notes', 'budget', '会议', 'draft'];

/**
 * The file index, built again in slices while files are created, renamed, saved (moved in time),
 * deactivated and removed: after every step, the files it holds in place are in the order a search walks
 * (newest first), every active file is found (in place, moved or checked one by one), and a keyword finds
 * exactly the files whose names match it now.
 */
it('keeps the files in search order and finds every one while it is built again from the last', () => {
  let state = 3;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  // Few distinct times, so that ties (then name, then id) decide much of the order.
  const timeOf = () => `2026-0${1 + Math.floor(next() * 3)}-1${Math.floor(next() * 3)}T09:00:0${Math.floor(next() * 3)}Z`;
  const nameOf = () => `${pick(WORDS)} ${pick(WORDS)}${next() < 0.3 ? ` ${Math.floor(next() * 50)}` : ''}`;
  const files = new Map<string, FileRecord>();
  for (let number = 0; number < 3_000; number += 1) files.set(`f${number}`, fileOf(`f${number}`, nameOf(), timeOf()));
  const slices: Array<() => boolean> = [];
  const search = new SearchState(
    { users: new Map(), departments: new Map(), files, activeTeamUsers: () => [] },
    { slicedFrom: 0, sliceMs: 0, schedule: (slice) => slices.push(slice) },
  );
  search.prepare([]);
  const write = (id: string, after: FileRecord | undefined) => {
    const before = files.get(id);
    if (after) files.set(id, after);
    else files.delete(id);
    search.fileChanged(id, before, after, after ? nameKeys(after.name) : undefined);
  };

  const keywords = ['plan', 'report', '报告', 'q3', 'budget draft', 'bg', '会', 'x'].map(normaliseKeyword);
  const expectSearchOrderAndEveryFile = (when: string) => {
    const { index, stale, changed, moved } = search.fileNames.current();
    const inPlace = index.ids.filter((_, entry) => stale[entry] === 0).map((id) => files.get(id));
    expect(
      inPlace.every((file) => file?.status === 'active'),
      `${when}: in place means active`,
    ).toBe(true);
    const ids = inPlace.map((file) => file!.id);
    expect(ids, `${when}: newest first`).toEqual(
      [...inPlace]
        .map((file) => file!)
        .sort(byNewest)
        .map((file) => file.id),
    );
    const found = new Set([...ids, ...moved.map((entry) => index.ids[entry]!), ...changed]);
    const missing = [...files.values()].filter((file) => file.status === 'active' && !found.has(file.id)).map((file) => file.id);
    expect(missing, `${when}: every active file is found`).toEqual([]);
    for (const keyword of keywords) {
      const matches = (file: FileRecord | undefined) => file?.status === 'active' && matchTier(keyword, { name: file.name, ...nameKeys(file.name) }) !== null;
      const candidates = search.fileNames.candidates(keyword, Number.POSITIVE_INFINITY).ids;
      const movedIds = moved.map((entry) => index.ids[entry]!);
      const hits = new Set([...candidates, ...movedIds].filter((id) => matches(files.get(id))));
      const expected = [...files.values()].filter((file) => matches(file)).map((file) => file.id);
      expect([...hits].sort(), `${when}: ${keyword.text}`).toEqual(expected.sort());
    }
  };

  let builds = 0;
  let added = 0;
  for (let step = 0; step < 4_000; step += 1) {
    if (slices.length > 0 && next() < 0.4) {
      if (slices[0]!()) {
        slices.shift();
        builds += 1;
      }
    } else {
      const roll = next();
      // Often a file written since the index was built: written again while a build is under way.
      const since = [...search.fileNames.current().changed];
      const id = roll < 0.1 ? `new${added++}` : since.length > 0 && next() < 0.3 ? pick(since) : `f${Math.floor(next() * 3_000)}`;
      const file = files.get(id);
      if (roll < 0.1 || !file) write(id, fileOf(id, nameOf(), timeOf()));
      else if (roll < 0.6) write(id, { ...file, updatedAt: timeOf() });
      else if (roll < 0.8) write(id, { ...file, name: nameOf() });
      else if (roll < 0.9) write(id, { ...file, status: file.status === 'active' ? 'pending' : 'active' });
      else write(id, undefined);
    }
    if (step % 20 === 0) expectSearchOrderAndEveryFile(`step ${step}`);
  }
  while (slices.length > 0) if (slices[0]!()) slices.shift();
  expectSearchOrderAndEveryFile('at the end');
  expect(builds).toBeGreaterThan(2);
});

it('keeps the files around one written during the build in their order', () => {
  // f0 newest, f1999 oldest, one second apart.
  const at = (second: number) => new Date(Date.UTC(2026, 0, 1) + second * 1000).toISOString().replace('.000', '');
  const files = new Map<string, FileRecord>();
  for (let number = 0; number < 2_000; number += 1) files.set(`f${number}`, fileOf(`f${number}`, `file ${number}`, at(10_000 - number)));
  const slices: Array<() => boolean> = [];
  const search = new SearchState(
    { users: new Map(), departments: new Map(), files, activeTeamUsers: () => [] },
    { slicedFrom: 0, sliceMs: 0, schedule: (slice) => slices.push(slice) },
  );
  search.prepare([]);
  const write = (after: FileRecord) => {
    const before = files.get(after.id)!;
    files.set(after.id, after);
    search.fileChanged(after.id, before, after, nameKeys(after.name));
  };
  // Every other file renamed in place (their times kept), about a thousand: the build that starts sorts
  // them again and merges them among the others (f1, f3, …), which keep their order from the index.
  for (let number = 0; slices.length === 0; number += 2) write({ ...files.get(`f${number}`)!, name: `renamed ${number}` });
  slices[0]!();
  // Saved during the build, moved to the oldest time: f1001, one the build reads from the index as it
  // goes, and f1000, one it merges in.
  write({ ...files.get('f1001')!, updatedAt: at(1) });
  write({ ...files.get('f1000')!, updatedAt: at(2) });
  while (!slices[0]!());
  const { index, stale, moved } = search.fileNames.current();
  const inPlace = index.ids.filter((_, entry) => stale[entry] === 0);
  expect(inPlace).toEqual(
    inPlace
      .map((id) => files.get(id)!)
      .sort(byNewest)
      .map((file) => file.id),
  );
  expect(inPlace).toEqual(expect.arrayContaining(['f1002', 'f1003']));
  const movedIds = moved.map((entry) => index.ids[entry]);
  expect([...search.fileNames.current().changed, ...movedIds]).toEqual(expect.arrayContaining(['f1000', 'f1001']));
});
