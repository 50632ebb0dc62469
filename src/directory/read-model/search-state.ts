import { emailLocalPart } from '../search-ranking.js';
import { nameKeys, type NameKeys } from '../search-keys.js';
import type { Department, FileRecord, User } from '../types.js';
import { ChangingNames } from './changing-names.js';
import { byNewest } from './file-order.js';
import type { IndexedName } from './name-index.js';
import { NewestFiles } from './newest-files.js';
import { ReadableEntries } from './readable-entries.js';

/** What the search indexes read from the model. */
export interface SearchSource {
  readonly users: ReadonlyMap<string, User>;
  readonly departments: ReadonlyMap<string, Department>;
  readonly files: ReadonlyMap<string, FileRecord>;
  activeTeamUsers(teamId: string): readonly string[];
}

/**
 * The search indexes of the read model: the names of each team's active people and departments and of
 * the active files (src/directory/read-model/name-index.ts), the pinyin keys the store computed on
 * write, and the active files newest first. The model tells it of every change; the indexes are built
 * on first use.
 */
export class SearchState {
  readonly userKeys = new Map<string, NameKeys>();
  readonly departmentKeys = new Map<string, NameKeys>();
  readonly fileKeys = new Map<string, NameKeys>();
  readonly newestUpdated: NewestFiles;
  readonly newestCreated: NewestFiles;
  private readonly teamPeople = new Map<string, ChangingNames>();
  private readonly teamDepartments = new Map<string, ChangingNames>();
  readonly fileNames: ChangingNames;
  /** Per principal: its files' entries in `fileNames` (the model drops a principal's on a grant change). */
  readonly readable = new ReadableEntries();

  constructor(private readonly source: SearchSource) {
    this.newestUpdated = new NewestFiles(source.files, 'updatedAt');
    this.newestCreated = new NewestFiles(source.files, 'createdAt');
    // Files are numbered newest first (`byNewest`), so within a tier of a posting the first readable
    // entries are a page: a search stops once it has its page and the count's cap. A file whose
    // `updatedAt` changes since is `moved` (ranked by its record) until the index is built again.
    this.fileNames = new ChangingNames(() => {
      const active: FileRecord[] = [];
      for (const file of source.files.values()) if (file.status === 'active') active.push(file);
      return active.sort(byNewest).map((file) => this.fileEntry(file));
    });
  }

  // ---- keys ----

  keysOfUser(user: User): NameKeys {
    return keysOf(this.userKeys, user.id, user.name);
  }
  keysOfDepartment(department: Department): NameKeys {
    return keysOf(this.departmentKeys, department.id, department.name);
  }
  keysOfFile(file: FileRecord): NameKeys {
    return keysOf(this.fileKeys, file.id, file.name);
  }

  // ---- indexes ----

  peopleOf(teamId: string): ChangingNames {
    let names = this.teamPeople.get(teamId);
    if (!names) {
      names = new ChangingNames(() =>
        this.source.activeTeamUsers(teamId).map((id) => {
          const user = this.source.users.get(id)!;
          const keys = this.keysOfUser(user);
          return { id, texts: user.email ? [lowerCase(user.name), emailLocalPart(user.email)] : [lowerCase(user.name)], keys: [keys.pinyin, keys.initials] };
        }),
      );
      this.teamPeople.set(teamId, names);
    }
    return names;
  }

  departmentsOf(teamId: string): ChangingNames {
    let names = this.teamDepartments.get(teamId);
    if (!names) {
      names = new ChangingNames(() => {
        const entries: IndexedName[] = [];
        for (const department of this.source.departments.values()) {
          if (department.teamId !== teamId) continue;
          const keys = this.keysOfDepartment(department);
          entries.push({ id: department.id, texts: [lowerCase(department.name)], keys: [keys.pinyin, keys.initials] });
        }
        return entries;
      });
      this.teamDepartments.set(teamId, names);
    }
    return names;
  }

  /** Builds every index now: after a load, so that no search waits for one. */
  prepare(teamIds: Iterable<string>): void {
    for (const teamId of teamIds) {
      this.peopleOf(teamId).prepare();
      this.departmentsOf(teamId).prepare();
    }
    this.fileNames.prepare();
    this.newestUpdated.prepare();
    this.newestCreated.prepare();
  }

  // ---- changes ----

  userChanged(id: string, before: User | undefined, after: User | undefined, keys: NameKeys | undefined): void {
    setKeys(this.userKeys, id, after, keys);
    if (before?.teamId) this.teamPeople.get(before.teamId)?.touch(id);
    if (after?.teamId) this.teamPeople.get(after.teamId)?.touch(id);
  }

  departmentChanged(id: string, before: Department | undefined, after: Department | undefined, keys: NameKeys | undefined): void {
    setKeys(this.departmentKeys, id, after, keys);
    if (before) this.teamDepartments.get(before.teamId)?.touch(id);
    if (after) this.teamDepartments.get(after.teamId)?.touch(id);
  }

  fileChanged(id: string, before: FileRecord | undefined, after: FileRecord | undefined, keys: NameKeys | undefined): void {
    setKeys(this.fileKeys, id, after, keys);
    // A change of name or status changes what the name index finds; of `updatedAt`, where it ranks.
    if (before?.name !== after?.name || before?.status !== after?.status) this.fileNames.touch(id);
    else if (after && before?.updatedAt !== after.updatedAt) this.fileNames.move(id, after.updatedAt);
    if (before?.updatedAt !== after?.updatedAt || before?.status !== after?.status || !before || !after) this.newestUpdated.touch(id);
    if (before?.createdAt !== after?.createdAt || before?.status !== after?.status || !before || !after) this.newestCreated.touch(id);
  }

  clear(): void {
    for (const map of [this.userKeys, this.departmentKeys, this.fileKeys]) map.clear();
    this.teamPeople.clear();
    this.teamDepartments.clear();
    this.fileNames.forget();
    this.readable.clear();
    this.newestUpdated.forget();
    this.newestCreated.forget();
  }

  private fileEntry(file: FileRecord): IndexedName {
    const keys = this.keysOfFile(file);
    return { id: file.id, texts: [lowerCase(file.name)], keys: [keys.pinyin, keys.initials] };
  }
}

/** The text in lower case: the text itself when it is already (the index keeps one string, not two). */
function lowerCase(text: string): string {
  const lower = text.toLowerCase();
  return lower === text ? text : lower;
}

function keysOf(known: Map<string, NameKeys>, id: string, name: string): NameKeys {
  let keys = known.get(id);
  if (!keys) {
    keys = nameKeys(name);
    known.set(id, keys);
  }
  return keys;
}

/** The keys the store computed on write, else forgotten (computed from the name when asked). */
function setKeys(known: Map<string, NameKeys>, id: string, after: unknown, keys: NameKeys | undefined): void {
  if (after && keys) known.set(id, keys.pinyin === '' && keys.initials === '' ? NO_KEYS : keys);
  else known.delete(id);
}

const NO_KEYS: NameKeys = Object.freeze({ pinyin: '', initials: '' });
