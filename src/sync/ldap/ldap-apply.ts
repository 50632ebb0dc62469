import type { ApplyResult, DirectoryChange, DirectoryChanges, DirectoryDiff, DirectorySection } from '../../directory-changes/directory-changes.js';
import type { DepartmentRecord } from '../../directory-changes/records.js';
import type { TeamState, UserState } from '../../store/directory-writes/directory-state.js';
import type { SkippedEntry } from '../sync-run-shape.js';
import { teamChange, type DesiredTeam, type KeptAsStored } from '../team-change.js';
import type { LdapView } from './ldap-view.js';

/** What applying LDAP's view did: the change path's last answer, what was written before a refusal, the entries left out. */
export interface LdapApplyOutcome {
  result: ApplyResult;
  /** Written before the refusal in `result` (the leavers, applied first). */
  applied: DirectoryDiff | undefined;
  skipped: SkippedEntry[];
}

export interface LdapApplyDeps {
  changes: DirectoryChanges;
  /** The LDAP team as stored now. */
  readTeam(): Promise<TeamState>;
}

/** A change is tried at most this often, each time without the records the change path refused the time before. */
const MAX_ATTEMPTS = 8;

type Section = 'users' | 'departments';

/**
 * How a record the change path refused is left out: `stored` keeps the stored record (a user disabled in
 * LDAP is still deactivated), `untouched` writes nothing of it; a record not stored is left out either way.
 */
interface Skip {
  dn: string;
  reason: string;
  level: 'stored' | 'untouched';
}

/**
 * Applies the team LDAP describes through the change path (source `ldap`), so that one entry no rule lets
 * in never stops a sync:
 * 1. leavers first, in their own transaction: users disabled in LDAP or gone from it are deactivated or
 *    removed before anything else is written (a refusal of the rest never keeps a leaver in);
 * 2. then everything else.
 * A refusal that names records (`$.users[3].name …`) is answered by leaving those records out, reported by
 * their entry's DN and the rule they break, and the change is tried again; a refusal that names none fails
 * the step. A dry run computes both steps as one change and writes nothing.
 */
export async function applyLdapView(deps: LdapApplyDeps, view: LdapView, options: { dryRun: boolean }): Promise<LdapApplyOutcome> {
  const skips = new Map<string, Skip>();
  const apply = (change: DirectoryChange) => deps.changes.apply(change, { source: 'ldap', dryRun: options.dryRun, allowEmpty: true });
  const outcome = (result: ApplyResult, applied?: DirectoryDiff): LdapApplyOutcome => ({ result, applied, skipped: [...view.skipped, ...skippedEntries(skips)] });

  let current = await deps.readTeam();
  if (options.dryRun) return outcome(await applySkipping(() => changeFor(view, current, skips), apply, view, skips, current));

  let leaversDiff: DirectoryDiff | undefined;
  const leavers = () => leaversOf(changeFor(view, current, skips), current);
  if (!isEmptyChange(leavers())) {
    const result = await applySkipping(leavers, apply, view, skips, current);
    if (result.ok) {
      leaversDiff = result.diff;
      current = await deps.readTeam();
    }
  }
  const result = await applySkipping(() => changeFor(view, current, skips), apply, view, skips, current);
  if (!result.ok) return outcome(result, leaversDiff);
  return outcome({ ...result, diff: leaversDiff ? mergeDiffs(leaversDiff, result.diff) : result.diff });
}

/** Tries `build()`'s change; while the refusal names records, leaves them out and tries again. */
async function applySkipping(
  build: () => DirectoryChange,
  apply: (change: DirectoryChange) => Promise<ApplyResult>,
  view: LdapView,
  skips: Map<string, Skip>,
  current: TeamState,
): Promise<ApplyResult> {
  let result: ApplyResult | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const change = build();
    result = await apply(change);
    if (result.ok || !blame(result, change, view, skips, current)) return result;
  }
  return result!;
}

/** The change for LDAP's view with the skipped records left out (kept as stored, or untouched). */
function changeFor(view: LdapView, current: TeamState, skips: ReadonlyMap<string, Skip>): DirectoryChange {
  const { desired, kept } = withoutSkipped(view.desired, current, skips);
  return teamChange(desired, current, kept);
}

/** The leavers of a change: its removals of users, and its deactivations written over the stored records. */
function leaversOf(change: DirectoryChange, current: TeamState): DirectoryChange {
  const stored = new Map(current.users.map((user) => [user.id, user]));
  const lockouts = ((change.upsert?.users ?? []) as UserState[])
    .filter((user) => user.active === false && stored.get(user.id)?.active === true)
    .map((user) => ({ ...stored.get(user.id)!, active: false }));
  return { upsert: { users: lockouts }, remove: { users: change.remove?.users ?? [] } };
}

function isEmptyChange(change: DirectoryChange): boolean {
  return Object.values(change.upsert ?? {}).every((records) => records.length === 0) && Object.values(change.remove ?? {}).every((ids) => ids.length === 0);
}

/**
 * LDAP's team with the skipped records replaced: a skipped user or department that is stored stays as
 * stored (a user LDAP disables is deactivated all the same), one that is not is left out, and references
 * to a department left out go to the nearest department above it that is not.
 */
function withoutSkipped(desired: DesiredTeam, current: TeamState, skips: ReadonlyMap<string, Skip>): { desired: DesiredTeam; kept: KeptAsStored } {
  if (skips.size === 0) return { desired, kept: { users: new Set(), departments: new Set() } };
  const skip = (section: Section, id: string) => skips.get(`${section}:${id}`)?.level;
  const storedUsers = new Map(current.users.map((user) => [user.id, user]));
  const storedDepartments = new Map(current.departments.map((department) => [department.id, department]));
  const kept = { users: new Set<string>(), departments: new Set<string>() };
  for (const key of skips.keys()) {
    const [section, id] = splitKey(key);
    if (section === 'users' && storedUsers.has(id) && (skip('users', id) === 'untouched' || !desired.users.some((user) => user.id === id))) kept.users.add(id);
    if (section === 'departments' && storedDepartments.has(id) && (skip('departments', id) === 'untouched' || !desired.departments.some((d) => d.id === id)))
      kept.departments.add(id);
  }

  const departments: DepartmentRecord[] = [];
  for (const department of desired.departments) {
    const level = skip('departments', department.id);
    if (level === undefined) departments.push(department);
    else if (level === 'stored' && storedDepartments.has(department.id)) departments.push(storedDepartments.get(department.id)!);
  }
  const remaining = new Set([...departments.map((department) => department.id), ...kept.departments]);
  const desiredParent = new Map(desired.departments.map((department) => [department.id, department.parentId ?? null]));
  const nearest = (id: string | null | undefined): string | null => {
    const seen = new Set<string>();
    let at = id ?? null;
    while (at !== null && !remaining.has(at) && !seen.has(at)) {
      seen.add(at);
      at = desiredParent.get(at) ?? null;
    }
    return at !== null && remaining.has(at) ? at : null;
  };
  const placed = departments.map((department) => ({ ...department, parentId: nearest(department.parentId) ?? nearest(desiredParent.get(department.id)) }));

  const users: DesiredTeam['users'] = [];
  for (const user of desired.users) {
    const level = skip('users', user.id);
    const stored = storedUsers.get(user.id);
    const record = level === undefined ? user : level === 'stored' && stored ? { ...stored, active: stored.active && user.active } : undefined;
    if (record) users.push({ ...record, departmentIds: [...new Set((record.departmentIds ?? []).map((id) => nearest(id)).filter((id) => id !== null))] });
  }
  return { desired: { ...desired, departments: placed, users }, kept };
}

/**
 * Turns the problems of a refusal into skips of the records they name (`$.users[3]…`, `$.remove.users[0]`);
 * a record skipped before is left untouched the next time. False when no problem names a record that can
 * still be left out: the refusal stands.
 */
function blame(result: Extract<ApplyResult, { ok: false }>, change: DirectoryChange, view: LdapView, skips: Map<string, Skip>, current: TeamState): boolean {
  const reasons = new Map<string, string[]>();
  for (const problem of result.problems) {
    const match = /^\$\.(remove\.)?(users|departments)\[(\d+)\]\.?(.*)$/.exec(problem.path);
    if (!match) return false;
    const [, removal, section, index, field] = match as unknown as [string, string | undefined, Section, string, string];
    const id = removal ? change.remove?.[section]?.[Number(index)] : (change.upsert?.[section]?.[Number(index)] as { id?: string } | undefined)?.id;
    if (id === undefined) return false;
    const key = `${section}:${id}`;
    reasons.set(key, [...(reasons.get(key) ?? []), `${removal ? 'its removal' : field === '' ? 'the record' : field} ${problem.message}`]);
  }
  let progress = false;
  for (const [key, texts] of reasons) {
    const [section, id] = splitKey(key);
    const before = skips.get(key);
    if (before?.level === 'untouched') continue;
    const stored = section === 'users' ? current.users.some((user) => user.id === id) : current.departments.some((department) => department.id === id);
    const dn = view.dns[section].get(id);
    // A record LDAP no longer has (a leaver, a department gone) can only be left untouched.
    const level = before || dn === undefined || !stored ? 'untouched' : 'stored';
    const label = section === 'users' ? 'user' : 'department';
    skips.set(key, { dn: dn ?? `(${label} ${id}, no longer in LDAP)`, reason: `${label} "${id}": ${texts.join('; ')}`, level });
    progress = true;
  }
  return progress;
}

function splitKey(key: string): [Section, string] {
  const at = key.indexOf(':');
  return [key.slice(0, at) as Section, key.slice(at + 1)];
}

function skippedEntries(skips: ReadonlyMap<string, Skip>): SkippedEntry[] {
  return [...skips.values()].map(({ dn, reason }) => ({ dn, reason }));
}

/** Two diffs written one after the other, as one: each id once per list. */
function mergeDiffs(first: DirectoryDiff, second: DirectoryDiff): DirectoryDiff {
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  const sections = (kind: 'created' | 'updated' | 'removed') =>
    Object.fromEntries((Object.keys(first[kind]) as DirectorySection[]).map((section) => [section, union(first[kind][section], second[kind][section])])) as Record<
      DirectorySection,
      string[]
    >;
  return {
    created: sections('created'),
    updated: sections('updated'),
    removed: sections('removed'),
    deactivatedUsers: union(first.deactivatedUsers, second.deactivatedUsers),
    reactivatedUsers: union(first.reactivatedUsers, second.reactivatedUsers),
  };
}
