import { createHash } from 'node:crypto';
import type { DirectorySection, DirectoryTransaction, StoredRecords } from './directory-store.js';
import { recordOf, storedIdOf } from './record-form.js';
import { SECTIONS } from './records.js';
import type { ValidSnapshot } from './validate.js';

/** What a change did (or, in a dry run, would do). */
export interface DirectoryDiff {
  created: Record<DirectorySection, string[]>;
  /** Records whose stored content changed. */
  updated: Record<DirectorySection, string[]>;
  removed: Record<DirectorySection, string[]>;
  /** Users that went from active to deactivated, or were removed while active. */
  deactivatedUsers: string[];
  /** Users that went from deactivated to active. */
  reactivatedUsers: string[];
}

/** What the rules need to know of the stored records a change touches, gathered while diffing. */
export interface StoredFacts {
  /** Team of each stored department the change upserts or removes. */
  departmentTeams: Map<string, string>;
  /** Team of each stored user the change upserts or removes. */
  userTeams: Map<string, string | null>;
  /** Ids asked to be removed that are not stored, by section. */
  missing: Record<DirectorySection, string[]>;
}

export interface DiffInput {
  snapshot: ValidSnapshot;
  /** Ids to remove (`replace`: ignored, every stored record the snapshot does not name goes). */
  remove: Record<DirectorySection, string[]>;
  replace: boolean;
  /** Bytes the change stores, by file id. */
  contents: ReadonlyMap<string, Buffer>;
}

const READ_CHUNK = 1_000;

export function sectionLists(): Record<DirectorySection, string[]> {
  return { teams: [], departments: [], users: [], files: [] };
}

/**
 * Compares a validated change with the store, section by section and a chunk of ids at a time (a replace
 * of a large directory never holds two copies of it): created, updated (the stored record's form differs,
 * or its bytes), removed, and the users it deactivates or reactivates.
 */
export async function diffChange(tx: DirectoryTransaction, input: DiffInput): Promise<{ diff: DirectoryDiff; facts: StoredFacts }> {
  const diff: DirectoryDiff = { created: sectionLists(), updated: sectionLists(), removed: sectionLists(), deactivatedUsers: [], reactivatedUsers: [] };
  const facts: StoredFacts = { departmentTeams: new Map(), userTeams: new Map(), missing: sectionLists() };
  const remember = (section: DirectorySection, stored: StoredRecords[DirectorySection]) => {
    if (section === 'departments') facts.departmentTeams.set((stored as StoredRecords['departments']).id, (stored as StoredRecords['departments']).teamId);
    if (section === 'users') facts.userTeams.set((stored as StoredRecords['users']).id, (stored as StoredRecords['users']).teamId);
  };

  for (const section of SECTIONS) {
    const given = givenRecords(input.snapshot, section);
    // A replace lists every stored id anyway (to find the removed ones): records it does not hold are
    // created without a read, so a replace into an empty store reads nothing.
    const storedIds = input.replace ? await allStoredIds(tx, section) : undefined;
    const known = storedIds === undefined ? [...given.values()] : [...given.values()].filter((entry) => storedIds.has(entry.id));
    if (storedIds !== undefined) for (const id of given.keys()) if (!storedIds.has(id)) diff.created[section].push(id);
    for (let start = 0; start < known.length; start += READ_CHUNK) {
      const chunk = known.slice(start, start + READ_CHUNK);
      const stored = new Map(
        (
          await tx.read(
            section,
            chunk.map((entry) => entry.id),
          )
        ).map((record) => [storedIdOf(section, record), record]),
      );
      for (const entry of chunk) {
        const before = stored.get(entry.id);
        if (before === undefined) {
          diff.created[section].push(entry.id);
          continue;
        }
        remember(section, before);
        if (await changed(tx, section, before, entry.record, input)) diff.updated[section].push(entry.id);
        if (section === 'users') {
          const wasActive = (before as StoredRecords['users']).active;
          const isActive = (entry.record as StoredRecords['users']).active;
          if (wasActive && !isActive) diff.deactivatedUsers.push(entry.id);
          if (!wasActive && isActive) diff.reactivatedUsers.push(entry.id);
        }
      }
    }

    const removing = storedIds === undefined ? [...new Set(input.remove[section])] : [...storedIds].filter((id) => !given.has(id));
    for (let start = 0; start < removing.length; start += READ_CHUNK) {
      const chunk = removing.slice(start, start + READ_CHUNK);
      const stored = new Map((await tx.read(section, chunk)).map((record) => [storedIdOf(section, record), record]));
      for (const id of chunk) {
        const before = stored.get(id);
        if (before === undefined) {
          facts.missing[section].push(id);
          continue;
        }
        remember(section, before);
        diff.removed[section].push(id);
        if (section === 'users' && (before as StoredRecords['users']).active) diff.deactivatedUsers.push(id);
      }
    }
  }
  return { diff, facts };
}

/** The change's records of a section by id (in the change's order), in the stored records' shapes. */
function givenRecords(snapshot: ValidSnapshot, section: DirectorySection): Map<string, { id: string; record: StoredRecords[DirectorySection] }> {
  const entries =
    section === 'files'
      ? snapshot.files.map((entry) => ({ id: entry.file.id, record: { file: entry.file, grants: entry.grants, contentSize: null } }))
      : (snapshot[section] as Array<{ id: string }>).map((record) => ({ id: record.id, record: record as StoredRecords[DirectorySection] }));
  return new Map(entries.map((entry) => [entry.id, entry]));
}

/** Whether writing `next` over `before` changes what is stored: its record, a file's status, or a file's bytes. */
async function changed(
  tx: DirectoryTransaction,
  section: DirectorySection,
  before: StoredRecords[DirectorySection],
  next: StoredRecords[DirectorySection],
  input: DiffInput,
): Promise<boolean> {
  if (JSON.stringify(recordOf(section, before, 'complete')) !== JSON.stringify(recordOf(section, next, 'complete'))) return true;
  if (section !== 'files') return false;
  const stored = before as StoredRecords['files'];
  if (stored.file.status !== (next as StoredRecords['files']).file.status) return true;
  const bytes = input.contents.get(stored.file.id);
  // Without new bytes an upsert keeps the stored ones, and a replace drops them.
  if (bytes === undefined) return input.replace && stored.contentSize !== null;
  if (stored.contentSize !== bytes.length) return true;
  // Compared by hash: the stored bytes may be in a directory or a bucket, not in the row.
  return (await tx.storedContentSha256(stored.file.id)) !== createHash('sha256').update(bytes).digest('hex');
}

async function allStoredIds(tx: DirectoryTransaction, section: DirectorySection): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let after: string | undefined, page: string[]; (page = await tx.pageIds(section, after === undefined ? {} : { after })).length > 0; after = page.at(-1)) {
    for (const id of page) ids.add(id);
  }
  return ids;
}
