import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { diffChange, sectionLists, type DirectoryDiff } from './change-diff.js';
import { crossTeamMoves, emptinessRefusal, missingRemovals, ownershipRefusal, refusal, removalPath, type Refusal } from './change-rules.js';
import { CONTENT_MANIFEST } from '../snapshot/content-manifest.js';
import { storedContentType } from '../storage/content-type.js';
import type { ContentToStore, DirectorySection, DirectoryTransaction, DirectoryWriteStore } from './directory-store.js';
import { EMPTY_DIRECTORY, withoutRemoved } from './existing-directory.js';
import { childPath, schemaProblems, type SchemaError, type SnapshotProblem } from './problems.js';
import { IdSchema, SECTIONS } from './records.js';
import { validateSnapshot, type ValidSnapshot } from './validate.js';
import { nameKeysAhead } from '../directory/name-keys-ahead.js';
import { withKeysComputed } from '../directory/search-keys.js';
import type { ApplyOptions, ApplyResult, DirectoryChange, DirectoryChangeListener } from './directory-change-types.js';

/** A change of at least this many records (or any replace) refreshes the database's statistics afterwards. */
const BULK_RECORDS = 1_000;

const checkId = Compile(IdSchema as TSchema);

/**
 * Why the pinyin thread is stopped when a change is over, made once: `abort()` without a reason makes a
 * DOMException with its stack on every write (2% of a SCIM create's CPU), although almost no write starts
 * a thread.
 */
const CHANGE_OVER = new Error('the directory change is over');

/** Thrown inside the transaction to roll it back: a refusal, or the end of a dry run. */
class Rollback extends Error {
  constructor(readonly outcome: ApplyResult) {
    super('rolled back');
  }
}

export interface ApplyContext {
  store: DirectoryWriteStore;
  owners: ReadonlyMap<string, string>;
  listeners: readonly DirectoryChangeListener[];
  /** The pinyin thread of a bulk write failed (why): its keys were computed on the writer's thread. */
  onThreadFailure?: (failure: Error) => void;
}

/**
 * The one validated path of every directory write, in ONE transaction: check the change's records against
 * every rule and against what is stored (400), the removals against what exists (404), cross-team moves and
 * team ownership (409); write; refuse removals that would leave rows pointing at nothing and changes that
 * empty a team (409); then run the listeners, inside the transaction. A dry run does all of it and rolls
 * back, so it answers exactly what the change would do.
 */
export async function applyChange(context: ApplyContext, change: DirectoryChange, options: ApplyOptions): Promise<ApplyResult> {
  const replace = options.replace ?? false;
  const read = readChange(change);
  if (read.problems.length > 0) return refused(refusal(400, 'invalid_record', read.problems));
  const { upsert, remove } = read;
  // A bulk write's pinyin keys are computed on another core while its records are checked.
  const stopKeys = new AbortController();
  const keysAhead = nameKeysAhead(namesOf(upsert), { signal: stopKeys.signal, ...(context.onThreadFailure ? { onFailure: context.onThreadFailure } : {}) });
  let rewritten = false;
  try {
    const progress = options.progress;
    const diff = await context.store.transaction(async (tx) => {
      await tx.lockWrites();
      progress?.step('checking the records');
      const gone = Object.fromEntries(SECTIONS.map((section) => [section, new Set(remove[section])])) as Record<DirectorySection, Set<string>>;
      const validation = await validateSnapshot(upsert, {
        existing: replace ? EMPTY_DIRECTORY : withoutRemoved(tx.existing, gone),
        ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
        ...(options.maxContentBytes === undefined ? {} : { maxContentBytes: options.maxContentBytes }),
      });
      if (!validation.ok) throw new Rollback(refused(refusal(400, 'invalid_record', validation.problems)));
      const snapshot = validation.snapshot;
      const read = await readContents(snapshot);
      if (read.problems.length > 0) throw new Rollback(refused(refusal(400, 'invalid_record', read.problems)));
      const contents = read.contents;

      const { diff, facts } = await diffChange(tx, { snapshot, remove, replace, contents: new Map(contents.map((content) => [content.fileId, content.bytes])) });
      const watched = options.allowEmpty ? undefined : await teamsThatMayEmpty(tx, diff, replace, leaversOf(snapshot, remove, replace));
      // Only a replace or a team's removal can take the last team (counted only then; 0 = not watched).
      const teamCount = async () => (replace || remove.teams.length > 0 ? tx.teamCount() : 0);
      const before = watched && { users: watched.activeBefore, leavers: watched.leaversBefore, teams: await teamCount() };
      throwIf(missingRemovals(facts, remove));
      if (!replace) throwIf(await crossTeamMoves(tx, snapshot, facts));
      throwIf(ownershipRefusal(context.owners, options.source, { snapshot, remove, replace }, diff, facts));

      rewritten = await withKeysComputed(await keysAhead, () => tx.write(snapshot, contents, { replace, diff, ...(progress ? { progress } : {}) }));
      if (!replace) throwIf(await removeAll(tx, remove));
      if (before) throwIf(emptinessRefusal(before, { users: await activeUsersAfter(tx, watched), teams: await teamCount() }, diff));

      if (options.dryRun) throw new Rollback({ ok: true, diff, dryRun: true });
      progress?.step('recording the change');
      for (const listener of context.listeners) await listener(tx.db, diff, options);
      progress?.step('committing');
      return diff;
    });
    // Statistics go stale when many rows changed, or all were written anew (a rewrite drops and rebuilds indexes).
    if (rewritten || changedRecords(diff) >= BULK_RECORDS) {
      progress?.step('refreshing the statistics');
      // The change has committed: statistics that cannot be refreshed now (another writer holds the
      // database) are said, not a failure; a serving process analyses what changed a lot on its next pass.
      const problem = await context.store.refreshStatistics().then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      if (problem !== undefined) return { ok: true, diff, dryRun: false, statisticsProblem: problem };
    }
    return { ok: true, diff, dryRun: false };
  } catch (error) {
    if (error instanceof Rollback) return error.outcome;
    throw error;
  } finally {
    stopKeys.abort(CHANGE_OVER);
  }
}

/** The names of the records to upsert, as sent (checked later; the keys of what is not a name go unused). */
function* namesOf(upsert: unknown): Iterable<unknown> {
  if (typeof upsert !== 'object' || upsert === null) return;
  for (const section of ['departments', 'users', 'files'] as const) {
    const records = (upsert as Record<string, unknown>)[section];
    if (!Array.isArray(records)) continue;
    for (const record of records) if (typeof record === 'object' && record !== null) yield (record as { name?: unknown }).name;
  }
}

/** The teams a change may leave without active users, with their active users before it (see teamsThatMayEmpty). */
interface WatchedTeams {
  /** Every team (a replace), or only those of the users the change updates or removes. */
  all: boolean;
  activeBefore: Map<string, number>;
  /** Of those active users, how many leave by this change (see leaversOf). */
  leaversBefore: Map<string, number>;
}

/**
 * The people a change names as leavers: users it deactivates (`active: false`) and, outside a replace,
 * users it lists in its removals. A team left without active users by leavers alone is never refused (a
 * leaver is always locked out); one emptied by users left out of a replace, or moved away, is.
 */
function leaversOf(snapshot: ValidSnapshot, remove: Record<DirectorySection, string[]>, replace: boolean): Set<string> {
  const leavers = new Set(snapshot.users.filter((user) => !user.active).map((user) => user.id));
  if (!replace) for (const id of remove.users) leavers.add(id);
  return leavers;
}

/** Active users by team among `users`, as a map. */
function activeByTeam(users: ReadonlyArray<{ active: boolean; teamId?: string | null }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const user of users) {
    if (user.active && user.teamId != null) counts.set(user.teamId, (counts.get(user.teamId) ?? 0) + 1);
  }
  return counts;
}

/**
 * Only a change to existing users (an update, a removal) can take a team's last active user, so only
 * their teams are watched, and they are counted from those users: a team that ends with none had exactly
 * those. A replace rewrites everything: every team is counted. Creating users (an identity provider's
 * first push) reads nothing here.
 */
async function teamsThatMayEmpty(tx: DirectoryTransaction, diff: DirectoryDiff, replace: boolean, leavers: ReadonlySet<string>): Promise<WatchedTeams> {
  if (replace) return { all: true, activeBefore: await tx.activeUsersByTeam(), leaversBefore: activeByTeam(await tx.read('users', [...leavers])) };
  const touched = await tx.read('users', [...diff.updated.users, ...diff.removed.users]);
  return { all: false, activeBefore: activeByTeam(touched), leaversBefore: activeByTeam(touched.filter((user) => leavers.has(user.id))) };
}

/** Active users after the change in the watched teams: counted for a replace, else 1 for a team that has any. */
async function activeUsersAfter(tx: DirectoryTransaction, watched: WatchedTeams): Promise<Map<string, number>> {
  if (watched.all) return tx.activeUsersByTeam();
  return new Map([...(await tx.teamsWithActiveUsers([...watched.activeBefore.keys()]))].map((teamId) => [teamId, 1]));
}

function refused(refusal: Refusal): ApplyResult {
  return { ok: false, ...refusal };
}

function throwIf(refusal: Refusal | undefined): void {
  if (refusal) throw new Rollback(refused(refusal));
}

/** The change's two parts, checked for shape: `upsert` as a snapshot (validated later), `remove` as lists of ids. */
function readChange(change: DirectoryChange): { upsert: unknown; remove: Record<DirectorySection, string[]>; problems: SnapshotProblem[] } {
  const problems: SnapshotProblem[] = [];
  const remove = sectionLists();
  const given = (change.remove ?? {}) as Record<string, unknown>;
  for (const [section, ids] of Object.entries(given)) {
    const path = childPath('$.remove', section);
    if (!(SECTIONS as readonly string[]).includes(section)) problems.push({ path, message: 'is not a known field' });
    else if (!Array.isArray(ids)) problems.push({ path, message: 'must be array' });
    else {
      ids.forEach((id: unknown, index) => {
        if (checkId.Check(id)) remove[section as DirectorySection].push(id as string);
        else problems.push(...schemaProblems(childPath(path, index), checkId.Errors(id) as Iterable<SchemaError>));
      });
    }
  }
  // Anything but an object is left to the validation, which says what a snapshot must be.
  const upsert: unknown = change.upsert ?? {};
  const sections = typeof upsert === 'object' && upsert !== null ? (upsert as Record<string, unknown>) : {};
  for (const section of SECTIONS) {
    const records = sections[section];
    if (!Array.isArray(records)) continue;
    const upserted = new Map<unknown, number>();
    records.forEach((record: unknown, index) => upserted.set((record as { id?: unknown } | null)?.id, index));
    remove[section].forEach((id, index) => {
      const at = upserted.get(id);
      if (at !== undefined) problems.push({ path: removalPath(section, index), message: `is also upserted by $.${section}[${at}]` });
    });
  }
  return { upsert, remove, problems };
}

/**
 * Reads the bytes of every `contentFile` before anything is written: one that vanished fails the change
 * whole, and so does one whose SHA-256 is not what the export's manifest recorded (a damaged copy). The
 * media type is the recorded one, else as for an upload.
 */
async function readContents(snapshot: ValidSnapshot): Promise<{ contents: ContentToStore[]; problems: SnapshotProblem[] }> {
  const problems: SnapshotProblem[] = [];
  const contents = await Promise.all(
    snapshot.files
      .filter((entry) => entry.contentPath !== null && entry.content !== null)
      .map(async ({ file, contentPath, content }) => {
        const bytes = await readFile(contentPath!);
        const recorded = content!.recorded;
        if (recorded && createHash('sha256').update(bytes).digest('hex') !== recorded.sha256) {
          problems.push({ path: content!.at, message: `names a file whose SHA-256 is not the ${recorded.sha256} that ${CONTENT_MANIFEST} beside it records` });
        }
        return { fileId: file.id, contentType: storedContentType(recorded?.contentType, file.ext, file.name, contentPath!), bytes };
      }),
  );
  return { contents, problems };
}

/**
 * Removes files, users, departments (children before their parents: a department still blocked by a
 * sub-department is tried again once others went) and teams; any removal still blocked refuses the change.
 */
async function removeAll(tx: DirectoryTransaction, remove: Record<DirectorySection, string[]>): Promise<Refusal | undefined> {
  const problems: SnapshotProblem[] = [];
  for (const section of ['files', 'users', 'departments', 'teams'] as const) {
    let pending = [...new Set(remove[section])];
    let reasons = new Map<string, string>();
    while (pending.length > 0) {
      reasons = new Map();
      for (const id of pending) {
        const result = await tx.remove(section, id);
        if (!result.removed) reasons.set(id, result.reason);
      }
      if (reasons.size === pending.length) break; // no progress
      pending = [...reasons.keys()];
    }
    for (const [id, reason] of reasons) problems.push({ path: removalPath(section, remove[section].indexOf(id)), message: reason });
  }
  return problems.length === 0 ? undefined : refusal(409, 'in_use', problems, problems.map((problem) => problem.message).join('; '));
}

function changedRecords(diff: DirectoryDiff): number {
  return SECTIONS.reduce((sum, section) => sum + diff.created[section].length + diff.updated[section].length + diff.removed[section].length, 0);
}
