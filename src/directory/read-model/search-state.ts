import { emailLocalPart } from '../search-ranking.js';
import { nameKeys, type NameKeys } from '../search-keys.js';
import type { Department, FileRecord, User } from '../types.js';
import { ChangingNames, type ChangingNamesOptions, type IndexState } from './changing-names.js';
import { byNewest } from './file-order.js';
import type { IndexedName, NameColumns, NameIndex } from './name-index.js';
import { NewestFiles } from './newest-files.js';
import { ReadableEntries } from './readable-entries.js';

/** Name indexes to build elsewhere (`SearchState.startBuilds`). */
export interface NameBuilds {
  columns: NameColumns[];
  finish(indexes: readonly NameIndex[]): void;
}

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

  constructor(
    private readonly source: SearchSource,
    /** How the indexes are built again (tests); the defaults otherwise. */
    private readonly names: ChangingNamesOptions = {},
  ) {
    this.newestUpdated = new NewestFiles(source.files, 'updatedAt');
    this.newestCreated = new NewestFiles(source.files, 'createdAt');
    // Files are numbered newest first (`byNewest`), so within a tier of a posting the first readable
    // entries are a page: a search stops once it has its page and the count's cap. A file whose
    // `updatedAt` changes since is `moved` (ranked by its record) until the index is built again.
    this.fileNames = new ChangingNames((since) => this.fileEntries(since), names);
  }

  /**
   * The active files' entries newest first (`byNewest`). Built again in slices, the files the index in
   * place holds unchanged keep its order and only those written since are sorted, and the entries are
   * read as the build goes: sorting 200,000 files and making their entries at once would hold the event
   * loop for a second.
   */
  private *fileEntries(since: IndexState | undefined): Iterable<IndexedName> {
    const files = this.source.files;
    if (!since) {
      const active: FileRecord[] = [];
      for (const file of files.values()) if (file.status === 'active') active.push(file);
      for (const file of active.sort(byNewest)) yield this.fileEntry(file);
      return;
    }
    const { index, stale } = since;
    const written = new Set(since.changed);
    for (const entry of since.moved) written.add(index.ids[entry]!);
    const placed: FileRecord[] = [];
    for (const id of written) {
      const file = files.get(id);
      if (file !== undefined && file.status === 'active') placed.push(file);
    }
    placed.sort(byNewest);
    // An entry not stale has the name, status and `updatedAt` it was built with (a change of any of
    // them touches or moves it), so those keep their order among themselves and the files written
    // since are merged in. `stale` is read as the merge goes, so a file written during this build is
    // left out (checked one by one after it) rather than merged by a record it was not ordered by; and
    // records are replaced on write, never changed, so `placed` keeps the ones it was sorted by.
    let entry = 0;
    const nextKept = (): FileRecord | undefined => {
      for (; entry < index.size; entry += 1) {
        if (stale[entry] !== 0) continue;
        const file = files.get(index.ids[entry]!);
        if (file === undefined || file.status !== 'active') continue;
        entry += 1;
        return file;
      }
      return undefined;
    };
    let kept = nextKept();
    let place = 0;
    for (;;) {
      const next = placed[place];
      if (kept === undefined && next === undefined) return;
      if (next === undefined || (kept !== undefined && byNewest(kept, next) <= 0)) {
        yield this.fileEntry(kept!);
        kept = nextKept();
      } else {
        yield this.fileEntry(next);
        place += 1;
      }
    }
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
      names = new ChangingNames(() => this.peopleEntries(this.source.activeTeamUsers(teamId)), this.names);
      this.teamPeople.set(teamId, names);
    }
    return names;
  }

  /**
   * The entries of a team's active people (`ids`, in name order), read as the build goes: someone written
   * meanwhile (then checked one by one) may be gone.
   */
  private *peopleEntries(ids: readonly string[]): Iterable<IndexedName> {
    for (const id of ids) {
      const user = this.source.users.get(id);
      if (user === undefined) continue;
      const keys = this.keysOfUser(user);
      yield { id, texts: user.email ? [lowerCase(user.name), emailLocalPart(user.email)] : [lowerCase(user.name)], keys: [keys.pinyin, keys.initials] };
    }
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
      }, this.names);
      this.teamDepartments.set(teamId, names);
    }
    return names;
  }

  /**
   * The name indexes a load builds (each team's people and departments, the files), to be built
   * elsewhere: their entries now, and `finish` to put the indexes built of them in place, in that order.
   */
  startBuilds(teamIds: Iterable<string>): NameBuilds {
    const targets: ChangingNames[] = [];
    for (const teamId of teamIds) targets.push(this.peopleOf(teamId), this.departmentsOf(teamId));
    targets.push(this.fileNames);
    const started = targets.flatMap((names) => {
      const columns = names.startBuild();
      return columns === undefined ? [] : [{ names, columns }];
    });
    return {
      columns: started.map(({ columns }) => columns),
      finish: (indexes) => started.forEach(({ names }, position) => names.finishBuild(indexes[position]!)),
    };
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
    // Forgotten, not only dropped: a build under way stops at its next slice.
    for (const names of [...this.teamPeople.values(), ...this.teamDepartments.values()]) names.forget();
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
