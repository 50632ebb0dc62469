import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import type { Snapshot } from '../../src/directory-changes/records.js';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { writeExportText } from '../../src/snapshot/export-text.js';
import { openDatabase } from '../../src/store/connection/database.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { freshStore } from '../ops/fresh-store.js';
import { dialects } from '../helpers/stores.js';

const DATES = { createdAt: '2026-11-01T09:00:00Z', updatedAt: '2026-11-02T09:00:00Z' };

/** Two departments, two users, a file shared with a department: enough for a move between departments. */
const COMPANY: Snapshot = {
  teams: [{ id: 't1', name: 'Acme' }],
  departments: [
    { id: 'd1', teamId: 't1', name: 'Sales', parentId: null },
    { id: 'd2', teamId: 't1', name: 'Support', parentId: null },
  ],
  users: [
    { id: 'u1', teamId: 't1', name: 'Ada', email: 'ada@example.com', departmentIds: ['d1'] },
    { id: 'u2', teamId: 't1', name: 'Bo', email: 'bo@example.com', departmentIds: ['d2'] },
  ],
  files: [{ id: 'f1', name: 'Plan', type: 'document', creatorId: 'u1', teamId: 't1', ...DATES, sharing: [{ principal: 'department:d1', role: 'viewer' }] }],
};

/** A change another instance writes while the export reads: a new department, a user moved into it, a file shared with it. */
const WRITTEN_MEANWHILE: Snapshot = {
  departments: [{ id: 'd3', teamId: 't1', name: 'Research', parentId: null }],
  users: [{ id: 'u2', teamId: 't1', name: 'Bo', email: 'bo@example.com', departmentIds: ['d3'] }],
  files: [{ id: 'f2', name: 'Lab notes', type: 'document', creatorId: 'u2', teamId: 't1', ...DATES, sharing: [{ principal: 'department:d3', role: 'editor' }] }],
};

describe.each(dialects)('export while another connection writes (%s)', (dialect) => {
  let drop: () => Promise<void>;
  let exporter: OpenDatabase;
  let writer: OpenDatabase;

  beforeAll(async () => {
    const store = await freshStore(dialect);
    drop = store.drop;
    exporter = await store.open();
    writer = await store.open();
    expect((await importSnapshot(directoryChanges(writer), COMPANY)).ok).toBe(true);
  });

  afterAll(async () => {
    await exporter?.close();
    await writer?.close();
    await drop?.();
  });

  it('is the directory of the moment it began: a department created after its departments were read is not named by the users it reads later', async () => {
    const before = await exportSnapshot(exporter.db);
    const pages: string[] = [];
    const during = await exportSnapshot(exporter.db, {
      afterPage: async (section) => {
        pages.push(section);
        // Once the departments are read, another connection commits a change that spans sections.
        if (section === 'departments') expect((await importSnapshot(directoryChanges(writer), WRITTEN_MEANWHILE)).ok).toBe(true);
      },
    });
    expect(pages).toEqual(['teams', 'departments', 'users', 'files']);
    expect(during).toEqual(before);
    // The write committed: the next export has all of it, and imports again.
    const after = await exportSnapshot(exporter.db);
    expect(after.departments.map((department) => department.id)).toEqual(['d1', 'd2', 'd3']);
    expect(after.users.find((user) => user.id === 'u2')?.departmentIds).toEqual(['d3']);
    expect(after.files.map((file) => file.id)).toEqual(['f1', 'f2']);
    expect((await importSnapshot(directoryChanges(writer), during, { replace: true })).ok).toBe(true);
    expect(await exportSnapshot(exporter.db)).toEqual(before);
  });
});

describe('the export as text, written a piece at a time', () => {
  let store: OpenDatabase;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
  });
  afterAll(async () => store?.close());

  const asText = async () => {
    const pieces: string[] = [];
    const counts = await writeExportText(store.db, async (text) => void pieces.push(text));
    return { text: pieces.join(''), pieces: pieces.length, counts };
  };
  const stringified = async () => `${JSON.stringify(await exportSnapshot(store.db), null, 2)}\n`;

  it('is the text JSON.stringify gives the snapshot, with empty sections, and parses back to it', async () => {
    const empty = await asText();
    expect(empty.text).toBe(await stringified());
    expect(JSON.parse(empty.text)).toEqual({ teams: [], departments: [], users: [], files: [] });

    // A team and its users, no department and no file: empty sections between and after full ones.
    const users = Array.from({ length: 700 }, (_, index) => ({ id: `u${String(index).padStart(4, '0')}`, teamId: 't1', name: `用户 ${index}`, email: `user${index}@example.com` }));
    expect((await importSnapshot(directoryChanges(store), { teams: [{ id: 't1', name: 'Acme "One"' }], users })).ok).toBe(true);
    const some = await asText();
    expect(some.text).toBe(await stringified());
    expect(some.counts).toEqual({ teams: 1, departments: 0, users: 700, files: 0 });
    // 700 users are more than one piece of text: the export never held the whole of it.
    expect(some.pieces).toBeGreaterThan(1);

    expect((await importSnapshot(directoryChanges(store), COMPANY)).ok).toBe(true);
    const all = await asText();
    expect(all.text).toBe(await stringified());
    expect(JSON.parse(all.text)).toEqual(await exportSnapshot(store.db));
  });
});
