import type { ChangeProgress } from '../../directory-changes/change-progress.js';
import type { ContentToStore, DepartmentDependents, DirectorySection, DirectoryTransaction, DirectoryWriteStore, RecordChanges } from '../../directory-changes/directory-store.js';
import type { ValidSnapshot } from '../../directory-changes/validate.js';
import { roleRank } from '../../directory/permissions.js';
import { ROLES } from '../../directory/types.js';
import type { OpenDatabase } from '../connection/database.js';
import { withIndexesDeferred } from '../statements/deferred-indexes.js';
import { withFeedAsReload } from '../change-feed/feed-as-reload.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { dialectOf } from '../dialect/dialect.js';
import { chunks, storeDirectory } from '../directory-reads/directory-lookups.js';
import { countRows, storedRecords } from './directory-records.js';
import { deleteDepartment, deleteFile, deleteTeam, deleteUser, type RemovalResult } from './directory-removals.js';
import {
  clearDirectory,
  deleteContents,
  putFileContent,
  rebuildDepartmentClosure,
  replaceGrants,
  upsertDepartments,
  upsertFiles,
  upsertTeams,
  upsertUsers,
} from './directory-writer.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/** The tables a replace rewrites in bulk (their secondary indexes are built after the rows). */
const BULK_TABLES = ['users', 'user_departments', 'files', 'file_grants'];
/** The tables whose statistics a bulk change makes stale. */
const DIRECTORY_TABLES = ['teams', 'departments', 'department_ancestors', 'users', 'user_departments', 'files', 'file_grants'];

const REMOVERS: Record<DirectorySection, (db: Db, id: string) => Promise<RemovalResult>> = {
  teams: deleteTeam,
  departments: deleteDepartment,
  users: deleteUser,
  files: deleteFile,
};

/**
 * The one validated path's store side over collab-host's own database. Given `turn` (a transaction that
 * holds the directory write lock already, see openWriteTurn), each change runs inside it under a savepoint:
 * a refused change rolls back only itself, and the turn's other work stays; the lock is not taken again.
 */
export function sqlDirectoryWriteStore(store: OpenDatabase, turn?: Db): DirectoryWriteStore {
  const db = turn ?? store.db;
  return {
    ...storedRecords(db),
    // Durable when it returns; on SQLite the disk sync happens off the event loop, shared by the writes
    // that commit meanwhile (an identity provider's burst of creates).
    transaction: (work) =>
      turn
        ? underSavepoint(turn, () => work(directoryTransaction(turn, { locked: true })))
        : inProcessTurns(store).run((committed) => dialectWork(store.db).durableTransaction(store.db, (trx) => work(directoryTransaction(trx, { locked: false })), committed)),
    refreshStatistics: () => dialectOf(db).refreshStatistics(db, DIRECTORY_TABLES),
  };
}

/**
 * Runs `work` in one durable transaction that holds the directory write lock from its first statement:
 * what `work` reads is what every earlier directory write committed, and no other write (on any instance
 * or process) commits before this one does. For a write computed from stored state (a read-modify-write).
 *
 * The turns of this process queue here, before taking a connection: one transaction waits for the
 * database's lock at a time, and a burst of writes does not hold the whole pool (reads keep theirs). The
 * turns that queued meanwhile run one after the other in ONE transaction (group commit: an identity
 * provider's burst of creates shares one lock, one commit and one disk sync), each under its own
 * savepoint: one that throws rolls back only itself and is rejected with its error; each is answered only
 * once the commit is on disk. A turn that ran alone is its own transaction, as before.
 */
export function openWriteTurn<T>(store: OpenDatabase, work: (trx: Db) => Promise<T>): Promise<T> {
  return inProcessTurns(store).turn(work);
}

/**
 * A transaction takes in no more queued turns once it has run this long: SQLite's driver is synchronous,
 * so a transaction's turns hold the event loop from first to last (requests of every route wait).
 */
const TURNS_BUDGET_MS = 20;

interface Job {
  /** A turn (batched with the turns next to it), or a transaction of its own. */
  turn?: (trx: Db) => Promise<unknown>;
  alone?: (committed: () => void) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * A first-come, first-served queue of transactions, one at a time: the next starts when the running one
 * has committed (while it waits for the disk) or failed, and after the event loop's turn: SQLite's driver
 * is synchronous, so queued work would otherwise run back to back as one long task, and no answer would
 * be written nor request read until the queue is empty. Turns next to each other share a transaction.
 */
class TurnQueue {
  private readonly pending: Job[] = [];
  private busy = false;

  constructor(private readonly store: OpenDatabase) {}

  /** `work` in a transaction of its own; it calls `committed` once its commit is visible (or settles). */
  run<T>(work: (committed: () => void) => Promise<T>): Promise<T> {
    return this.add({ alone: work });
  }

  /** `work` in a transaction that may hold the turns queued next to it too (see openWriteTurn). */
  turn<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.add({ turn: work });
  }

  private add<T>(job: Omit<Job, 'resolve' | 'reject'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ ...job, resolve: resolve as (value: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy || this.pending.length === 0) return;
    this.busy = true;
    setImmediate(() => this.next());
  }

  private next(): void {
    let released = false;
    const committed = () => {
      if (released) return;
      released = true;
      this.busy = false;
      this.pump();
    };
    const first = this.pending.shift()!;
    if (first.alone) {
      first.alone(committed).then(first.resolve, first.reject).finally(committed);
      return;
    }
    const started = performance.now();
    const more = () => (this.pending[0]?.turn && performance.now() - started < TURNS_BUDGET_MS ? this.pending.shift() : undefined);
    void runTurns(this.store, first, more, committed).finally(committed);
  }
}

type Outcome = { value: unknown } | { error: unknown };

/**
 * `first` and the turns `more` gives (while the queue has turns and the budget lasts) in one durable
 * transaction (see openWriteTurn); each job settled once it is on disk. A turn alone is the transaction.
 */
async function runTurns(store: OpenDatabase, first: Job, more: () => Job | undefined, committed: () => void): Promise<void> {
  const batch = [first];
  const outcomes: Outcome[] = [];
  try {
    await dialectWork(store.db).durableTransaction(
      store.db,
      async (trx) => {
        await lockWrites(trx);
        const second = more();
        if (!second) {
          outcomes.push({ value: await first.turn!(trx) });
          return;
        }
        batch.push(second);
        for (let index = 0; index < batch.length; index += 1) {
          const job = batch[index]!;
          await TURN_SAVEPOINT.run(trx, []);
          try {
            const value = await job.turn!(trx);
            await RELEASE_TURN.run(trx, []);
            outcomes.push({ value });
          } catch (error) {
            await ROLLBACK_TO_TURN.run(trx, []);
            await RELEASE_TURN.run(trx, []);
            outcomes.push({ error });
          }
          const next = index === batch.length - 1 ? more() : undefined;
          if (next) batch.push(next);
        }
      },
      committed,
    );
  } catch (error) {
    for (const job of batch) job.reject(error);
    return;
  }
  batch.forEach((job, index) => {
    const outcome = outcomes[index]!;
    if ('error' in outcome) job.reject(outcome.error);
    else job.resolve(outcome.value);
  });
}

const TURN_SAVEPOINT = new Statement('SAVEPOINT write_turn');
const RELEASE_TURN = new Statement('RELEASE SAVEPOINT write_turn');
const ROLLBACK_TO_TURN = new Statement('ROLLBACK TO SAVEPOINT write_turn');

const turnQueues = new WeakMap<OpenDatabase['db'], TurnQueue>();

function inProcessTurns(store: OpenDatabase): TurnQueue {
  let queue = turnQueues.get(store.db);
  if (!queue) turnQueues.set(store.db, (queue = new TurnQueue(store)));
  return queue;
}

const lockWrites = (db: Db) => dialectOf(db).lockDirectoryWrites(db);

/** Both dialects name savepoints alike; one change at a time runs in a turn, so one name serves. */
async function underSavepoint<T>(trx: Db, work: () => Promise<T>): Promise<T> {
  await SAVEPOINT.run(trx, []);
  try {
    const result = await work();
    await RELEASE.run(trx, []);
    return result;
  } catch (error) {
    await ROLLBACK_TO.run(trx, []);
    await RELEASE.run(trx, []);
    throw error;
  }
}

const SAVEPOINT = new Statement('SAVEPOINT directory_change');
const RELEASE = new Statement('RELEASE SAVEPOINT directory_change');
const ROLLBACK_TO = new Statement('ROLLBACK TO SAVEPOINT directory_change');

/** `locked`: the transaction is a write turn's, which took the directory write lock first. */
function directoryTransaction(db: Db, { locked }: { locked: boolean }): DirectoryTransaction {
  return {
    ...storedRecords(db),
    db,
    existing: storeDirectory(db),
    lockWrites: locked ? async () => undefined : () => lockWrites(db),
    async departmentDependents(ids) {
      const dependents = new Map<string, DepartmentDependents>();
      const tally = async (field: keyof DepartmentDependents, rows: Promise<Array<{ id: string | null; count: number }>>) => {
        for (const row of await rows) {
          if (row.id === null) continue;
          const entry = dependents.get(row.id) ?? { members: 0, children: 0, grants: 0 };
          entry[field] = Number(row.count);
          dependents.set(row.id, entry);
        }
      };
      for (const chunk of chunks(ids)) {
        await tally(
          'members',
          db
            .selectFrom('user_departments')
            .select((eb) => ['department_id as id', eb.fn.countAll<number>().as('count')])
            .where('department_id', 'in', chunk)
            .groupBy('department_id')
            .execute(),
        );
        await tally(
          'children',
          db
            .selectFrom('departments')
            .select((eb) => ['parent_id as id', eb.fn.countAll<number>().as('count')])
            .where('parent_id', 'in', chunk)
            .groupBy('parent_id')
            .execute(),
        );
        await tally(
          'grants',
          db
            .selectFrom('file_grants')
            .select((eb) => ['principal_id as id', eb.fn.countAll<number>().as('count')])
            .where('principal_kind', '=', 'department')
            .where('principal_id', 'in', chunk)
            .groupBy('principal_id')
            .execute(),
        );
      }
      return dependents;
    },
    async activeUsersByTeam() {
      const rows = await db
        .selectFrom('users')
        .select((eb) => ['team_id', eb.fn.countAll<number>().as('count')])
        .where('active', '=', 1)
        .where('team_id', 'is not', null)
        .groupBy('team_id')
        .execute();
      return new Map(rows.map((row) => [row.team_id!, Number(row.count)]));
    },
    async teamsWithActiveUsers(teamIds) {
      const found = new Set<string>();
      for (const teamId of new Set(teamIds)) {
        const row = await db.selectFrom('users').select('id').where('team_id', '=', teamId).where('active', '=', 1).limit(1).executeTakeFirst();
        if (row) found.add(teamId);
      }
      return found;
    },
    teamCount: () => countRows(db, 'teams'),
    write: (snapshot, contents, options) => writeSnapshot(db, snapshot, contents, options.replace, options.progress, options.diff),
    async remove(section, id) {
      const result = await REMOVERS[section](db, id);
      if (result.status === 'blocked') return { removed: false, reason: result.reason };
      return { removed: true };
    },
  };
}

/** Whether the directory has no users and no files. */
async function directoryIsEmpty(db: Db): Promise<boolean> {
  const user = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  const file = await db.selectFrom('files').select('id').limit(1).executeTakeFirst();
  return !user && !file;
}

/** Records per write step: each step reports its rows to the progress line. */
const STEP_RECORDS = 20_000;

function slices<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += STEP_RECORDS) result.push(items.slice(start, start + STEP_RECORDS));
  return result;
}

async function writeSnapshot(
  db: Db,
  snapshot: ValidSnapshot,
  contents: readonly ContentToStore[],
  replace: boolean,
  progress?: ChangeProgress,
  diff?: RecordChanges,
): Promise<boolean> {
  if (replace && diff && changesLittle(snapshot, diff)) {
    await writeDifference(db, snapshot, contents, diff, progress);
    return false;
  }
  // A replace rewrites every key: the change feed says "reload everything" once instead of once per row.
  if (replace) await withFeedAsReload(db, () => writeRecords(db, snapshot, contents, replace, progress));
  else await writeRecords(db, snapshot, contents, replace, progress);
  return replace;
}

/** Whether a replace's diff names at most half of the records (the snapshot's and the removed ones). */
function changesLittle(snapshot: ValidSnapshot, diff: RecordChanges): boolean {
  let named = 0;
  let removed = 0;
  for (const section of ['teams', 'departments', 'users', 'files'] as const) {
    named += diff.created[section].length + diff.updated[section].length + diff.removed[section].length;
    removed += diff.removed[section].length;
  }
  const records = snapshot.teams.length + snapshot.departments.length + snapshot.users.length + snapshot.files.length + removed;
  return named * 2 <= records;
}

/**
 * A replace that changes little of a stored directory (the nightly import of a directory that barely
 * moved) writes only what its diff names: the records created or updated, upserted as any change's are;
 * the bytes an updated file no longer brings, dropped (a replace keeps no bytes it does not bring); the
 * removed records deleted. The end state is the rewrite's; the rows not named are not touched, so the
 * change feed names only what changed and serving processes reload that instead of the whole directory
 * (a whole reload holds every callback read until it is done).
 */
async function writeDifference(db: Db, snapshot: ValidSnapshot, contents: readonly ContentToStore[], diff: RecordChanges, progress?: ChangeProgress): Promise<void> {
  const named = (section: DirectorySection) => new Set([...diff.created[section], ...diff.updated[section]]);
  const teams = named('teams');
  const departments = named('departments');
  const users = named('users');
  const files = named('files');
  const changed: ValidSnapshot = {
    teams: snapshot.teams.filter((team) => teams.has(team.id)),
    departments: snapshot.departments.filter((department) => departments.has(department.id)),
    users: snapshot.users.filter((user) => users.has(user.id)),
    files: snapshot.files.filter((entry) => files.has(entry.file.id)),
  };
  await writeRecords(
    db,
    changed,
    contents.filter((content) => files.has(content.fileId)),
    false,
    progress,
  );
  // A replace keeps no bytes it does not bring (a new file's id may have bytes left by a file a DBA deleted).
  const brought = new Set(contents.map((content) => content.fileId));
  await deleteContents(
    db,
    [...diff.created.files, ...diff.updated.files].filter((id) => !brought.has(id)),
  );
  await removeRecords(db, diff.removed);
  await removeUnreachableRows(db);
}

/**
 * Deletes the rows no record reaches, which a rewrite's clear removed and a diff does not see (reads of
 * the stored records leave them out): grants on files that do not exist, to principals that do not exist,
 * or of a rank that is no role; memberships of users or departments that do not exist; bytes of files that
 * do not exist. Only a DBA's SQL leaves such rows; without this a user created later under a removed
 * id would inherit a grant.
 */
async function removeUnreachableRows(db: Db): Promise<void> {
  await db
    .deleteFrom('file_grants')
    .where((eb) =>
      eb.or([
        eb.not(eb.exists(eb.selectFrom('files').select('files.id').whereRef('files.id', '=', 'file_grants.file_id'))),
        eb('role_rank', 'not in', ROLE_RANKS),
        eb('principal_kind', 'not in', ['user', 'department', 'team']),
        eb.and([eb('principal_kind', '=', 'user'), eb.not(eb.exists(eb.selectFrom('users').select('users.id').whereRef('users.id', '=', 'file_grants.principal_id')))]),
        eb.and([
          eb('principal_kind', '=', 'department'),
          eb.not(eb.exists(eb.selectFrom('departments').select('departments.id').whereRef('departments.id', '=', 'file_grants.principal_id'))),
        ]),
        eb.and([eb('principal_kind', '=', 'team'), eb.not(eb.exists(eb.selectFrom('teams').select('teams.id').whereRef('teams.id', '=', 'file_grants.principal_id')))]),
      ]),
    )
    .execute();
  await db
    .deleteFrom('user_departments')
    .where((eb) =>
      eb.or([
        eb.not(eb.exists(eb.selectFrom('users').select('users.id').whereRef('users.id', '=', 'user_departments.user_id'))),
        eb.not(eb.exists(eb.selectFrom('departments').select('departments.id').whereRef('departments.id', '=', 'user_departments.department_id'))),
      ]),
    )
    .execute();
  await db
    .deleteFrom('file_contents')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('files').select('files.id').whereRef('files.id', '=', 'file_contents.file_id'))))
    .execute();
}

/** The ranks of the roles (a grant of any other rank grants nothing). */
const ROLE_RANKS = ROLES.map(roleRank);

/**
 * Deletes the records of `removed`, each with what goes with it (REMOVERS): files, then users, then
 * departments (a department goes after its sub-departments), then teams. After the rest of a valid
 * replace nothing else refers to them; one that is still referred to is a fault, and throws.
 */
async function removeRecords(db: Db, removed: RecordChanges['removed']): Promise<void> {
  for (const section of ['files', 'users', 'departments', 'teams'] as const) {
    let left = [...removed[section]];
    while (left.length > 0) {
      const blocked: Array<{ id: string; reason: string }> = [];
      for (const id of left) {
        const result = await REMOVERS[section](db, id);
        if (result.status === 'blocked') blocked.push({ id, reason: result.reason });
      }
      // Departments: a parent removed in the same change goes once its sub-departments have gone.
      if (blocked.length === left.length) throw new Error(`a replace could not remove ${section} ${blocked[0]!.id}: ${blocked[0]!.reason}`);
      left = blocked.map((entry) => entry.id);
    }
  }
}

async function writeRecords(db: Db, snapshot: ValidSnapshot, contents: readonly ContentToStore[], replace: boolean, progress?: ChangeProgress): Promise<void> {
  const { teams, departments, users, files } = snapshot;
  const grantCount = files.reduce((sum, entry) => sum + entry.grants.length, 0);
  progress?.step('writing rows', teams.length + departments.length + users.length + files.length + grantCount);
  // Before the clear: whether anyone could have read these tables (the first import of a directory).
  const nothingToRead = replace && (await directoryIsEmpty(db));
  if (replace) await clearDirectory(db);
  await upsertTeams(db, teams);
  if (departments.length > 0 || replace) {
    await upsertDepartments(db, departments);
    await rebuildDepartmentClosure(db);
  }
  progress?.advance(teams.length + departments.length);
  const write = async () => {
    for (const slice of slices(users)) {
      await upsertUsers(db, slice, { fresh: replace });
      progress?.advance(slice.length);
    }
    for (const slice of slices(files)) {
      await upsertFiles(
        db,
        slice.map((entry) => entry.file),
        { fresh: replace },
      );
      // After a clear there is nothing to delete; otherwise a file's sharing replaces its old grants.
      const grants = slice.flatMap((entry) => entry.grants);
      await replaceGrants(db, replace ? [] : slice.map((entry) => entry.file.id), grants);
      progress?.advance(slice.length + grants.length);
    }
    if (replace) progress?.step('building indexes');
  };
  // A replace writes every row anew: build the big tables' secondary indexes once, at the end.
  if (replace) await withIndexesDeferred(db, BULK_TABLES, write, { nothingToRead });
  else await write();
  for (const content of contents) await putFileContent(db, content.fileId, content.contentType, content.bytes);
}
