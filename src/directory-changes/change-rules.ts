import type { DirectoryDiff, StoredFacts } from './change-diff.js';
import type { DirectorySection, DirectoryTransaction } from './directory-store.js';
import { childPath, type SnapshotProblem } from './problems.js';
import { SECTIONS } from './records.js';
import type { ValidSnapshot } from './validate.js';

/** A change the rules refuse: the answer's status, a stable code, a message and every problem by path. */
export interface Refusal {
  status: 400 | 404 | 409;
  code: string;
  message: string;
  problems: SnapshotProblem[];
}

const LABEL: Record<DirectorySection, string> = { teams: 'team', departments: 'department', users: 'user', files: 'file' };

/** `$.remove.users[3]`: where a removal is in the change. */
export function removalPath(section: DirectorySection, index: number): string {
  return childPath(childPath('$.remove', section), index);
}

/** A refusal listing `problems`; its message is the problems in one line. */
export function refusal(status: Refusal['status'], code: string, problems: SnapshotProblem[], message?: string): Refusal {
  return { status, code, message: message ?? problems.map((problem) => `${problem.path} ${problem.message}`).join('; '), problems };
}

/** Removals of records that are not stored: 404. */
export function missingRemovals(facts: StoredFacts, remove: Record<DirectorySection, string[]>): Refusal | undefined {
  const problems: SnapshotProblem[] = [];
  const names: string[] = [];
  for (const section of SECTIONS) {
    for (const id of facts.missing[section]) {
      problems.push({ path: removalPath(section, remove[section].indexOf(id)), message: `names unknown ${LABEL[section]} "${id}"` });
      names.push(`${LABEL[section]} ${id}`);
    }
  }
  if (problems.length === 0) return undefined;
  return refusal(404, 'not_found', problems, `no ${names.join(', no ')}`);
}

/**
 * A department never changes teams: its members would be listed to the other team, its sub-departments
 * would keep a parent there, and its grants would reach across. 409 with what it carries.
 */
export async function crossTeamMoves(tx: DirectoryTransaction, snapshot: ValidSnapshot, facts: StoredFacts): Promise<Refusal | undefined> {
  const moved = snapshot.departments
    .map((department, index) => ({ department, index, from: facts.departmentTeams.get(department.id) }))
    .filter((entry) => entry.from !== undefined && entry.from !== entry.department.teamId);
  if (moved.length === 0) return undefined;
  const dependents = await tx.departmentDependents(moved.map((entry) => entry.department.id));
  const problems = moved.map(({ department, index, from }) => {
    const carried = dependents.get(department.id) ?? { members: 0, children: 0, grants: 0 };
    const what = [count(carried.members, 'member'), count(carried.children, 'sub-department'), count(carried.grants, 'grant')].join(', ');
    return {
      path: `$.departments[${index}].teamId`,
      message:
        `moves department "${department.id}" from team "${from}" to team "${department.teamId}": a department cannot change teams ` +
        `(it has ${what} in team "${from}"); remove it and create a department in team "${department.teamId}"`,
    };
  });
  return refusal(409, 'cross_team_move', problems);
}

/**
 * Teams kept by a source (`owners`): a change from any other source that creates, updates or removes
 * the team, one of its departments or one of its users (moving in or out included) is refused. Files are
 * written by every source (documents are created through the platform and the management API).
 */
export function ownershipRefusal(
  owners: ReadonlyMap<string, string>,
  source: string,
  change: { snapshot: ValidSnapshot; remove: Record<DirectorySection, string[]>; replace: boolean },
  diff: DirectoryDiff,
  facts: StoredFacts,
): Refusal | undefined {
  if (owners.size === 0) return undefined;
  const problems: SnapshotProblem[] = [];
  const check = (path: string, what: string, teams: Array<string | null | undefined>) => {
    for (const team of new Set(teams)) {
      const owner = team == null ? undefined : owners.get(team);
      if (owner !== undefined && owner !== source)
        problems.push({ path, message: `${what} of team "${team}", which source "${owner}" keeps: writes from "${source}" are refused` });
    }
  };
  const touched = (section: DirectorySection) => new Set([...diff.created[section], ...diff.updated[section]]);
  const teams = touched('teams');
  change.snapshot.teams.forEach((team, index) => teams.has(team.id) && check(`$.teams[${index}]`, `writes team "${team.id}"`, [team.id]));
  const departments = touched('departments');
  change.snapshot.departments.forEach(
    (department, index) =>
      departments.has(department.id) && check(`$.departments[${index}]`, `writes department "${department.id}"`, [department.teamId, facts.departmentTeams.get(department.id)]),
  );
  const users = touched('users');
  change.snapshot.users.forEach((user, index) => users.has(user.id) && check(`$.users[${index}]`, `writes user "${user.id}"`, [user.teamId, facts.userTeams.get(user.id)]));

  const removedTeam: Record<Exclude<DirectorySection, 'files'>, (id: string) => string | null | undefined> = {
    teams: (id) => id,
    departments: (id) => facts.departmentTeams.get(id),
    users: (id) => facts.userTeams.get(id),
  };
  for (const section of ['teams', 'departments', 'users'] as const) {
    for (const id of diff.removed[section]) {
      const path = change.replace ? '$' : removalPath(section, change.remove[section].indexOf(id));
      check(path, `removes ${LABEL[section]} "${id}"`, [removedTeam[section](id)]);
    }
  }
  return problems.length === 0 ? undefined : refusal(409, 'team_owned_by_source', problems);
}

/**
 * A change that leaves a team that had active users with none, or removes every team, is refused unless
 * allowed (`allowEmpty`): the mark of a wrong file or an empty answer from a source, not of a real change.
 * A team whose active users all leave by the change (deactivated, or removed by name: `before.leavers`)
 * is never refused: a leaver is always locked out, the team's last one too.
 */
export function emptinessRefusal(
  before: { users: ReadonlyMap<string, number>; leavers: ReadonlyMap<string, number>; teams: number },
  after: { users: ReadonlyMap<string, number>; teams: number },
  diff: DirectoryDiff,
): Refusal | undefined {
  const problems: SnapshotProblem[] = [];
  const removedTeams = new Set(diff.removed.teams);
  for (const [team, users] of before.users) {
    const onlyLeavers = (before.leavers.get(team) ?? 0) >= users;
    if (users > 0 && !((after.users.get(team) ?? 0) > 0) && !removedTeams.has(team) && !onlyLeavers) {
      problems.push({ path: '$', message: `leaves team "${team}" with no active users (it had ${users})` });
    }
  }
  if (before.teams > 0 && after.teams === 0) problems.push({ path: '$', message: `removes every team (there ${before.teams === 1 ? 'was 1' : `were ${before.teams}`})` });
  if (problems.length === 0) return undefined;
  const message = `${problems.map((problem) => problem.message).join('; ')}; allow it with allowEmpty (import --allow-empty)`;
  return refusal(409, 'directory_would_be_empty', problems, message);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
