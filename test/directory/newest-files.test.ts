import { expect, it } from 'vitest';
import { NewestFiles } from '../../src/directory/read-model/newest-files.js';
import type { FileRecord, FileStatus } from '../../src/directory/types.js';
import { fileRecord } from './file-record.js';

function fileOf(id: string, updatedAt: string, createdAt: string, name: string, status: FileStatus): FileRecord {
  return fileRecord({ id, name, updatedAt, createdAt, status });
}

/**
 * GET /files's order while files are created, edited (a later `updatedAt`), renamed, deactivated and
 * removed, past the writes kept beside the order (merged into it then): every walk visits exactly the
 * active files, newest first by its column, ties by id descending, each as its record is now.
 */
it('walks the active files newest first, as they are now, through any number of writes', () => {
  let state = 5;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  // Few distinct times, so that ties (by id) decide much of the order.
  const timeOf = () => `2026-0${1 + Math.floor(next() * 3)}-1${Math.floor(next() * 5)}T09:00:00Z`;
  const files = new Map<string, FileRecord>();
  for (let number = 0; number < 3_000; number += 1) files.set(`f${number}`, fileOf(`f${number}`, timeOf(), timeOf(), `file ${number}`, next() < 0.9 ? 'active' : 'pending'));
  const orders = { updatedAt: new NewestFiles(files, 'updatedAt'), createdAt: new NewestFiles(files, 'createdAt') };
  for (const order of Object.values(orders)) order.prepare();
  const expectWalks = (when: string) => {
    for (const [column, order] of Object.entries(orders) as Array<[keyof typeof orders, NewestFiles]>) {
      const walked: FileRecord[] = [];
      order.walk((file) => walked.push(file) > 0);
      const expected = [...files.values()]
        .filter((file) => file.status === 'active')
        .sort((a, b) => (a[column] !== b[column] ? (a[column] < b[column] ? 1 : -1) : a.id < b.id ? 1 : -1));
      expect(
        walked.map((file) => file.id),
        `${when}, by ${column}`,
      ).toEqual(expected.map((file) => file.id));
      expect(
        walked.every((file) => file === files.get(file.id)),
        `${when}, by ${column}: the records now`,
      ).toBe(true);
      // A walk stops when told: the first page.
      const page: string[] = [];
      order.walk((file) => page.push(file.id) < 20);
      expect(page, `${when}, by ${column}: a page`).toEqual(expected.slice(0, 20).map((file) => file.id));
    }
  };
  let added = 0;
  for (let step = 0; step < 6_000; step += 1) {
    const roll = next();
    const id = roll < 0.1 ? `new${added++}` : `f${Math.floor(next() * 3_000)}`;
    const before = files.get(id);
    let after: FileRecord | undefined;
    if (!before) after = fileOf(id, timeOf(), timeOf(), `file ${id}`, 'active');
    else if (roll < 0.6) after = { ...before, updatedAt: timeOf() };
    else if (roll < 0.8) after = { ...before, name: `renamed ${step}` };
    else if (roll < 0.95) after = { ...before, status: before.status === 'active' ? 'pending' : 'active' };
    if (after) files.set(id, after);
    else files.delete(id);
    // What the read model tells each order (search-state.ts): a change of its time, of the status, a file that came or went.
    if (before?.updatedAt !== after?.updatedAt || before?.status !== after?.status || !before || !after) orders.updatedAt.touch(id);
    if (before?.createdAt !== after?.createdAt || before?.status !== after?.status || !before || !after) orders.createdAt.touch(id);
    if (step % 50 === 0) expectWalks(`step ${step}`);
  }
  expectWalks('at the end');
});
