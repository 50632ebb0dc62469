import type { DepartmentRecord, TeamRecord, UserRecord } from '../directory-changes/records.js';
import type { TeamState } from '../store/directory-writes/directory-state.js';
import type { DirectoryChange } from '../directory-changes/directory-changes.js';

/** What a source says one team should be: the team, every department and every user, `active` included. */
export interface DesiredTeam {
  team: TeamRecord;
  departments: DepartmentRecord[];
  users: Array<UserRecord & { active: boolean }>;
}

/** Ids of stored records the source does not give but that stay as stored (entries it could not read this time). */
export interface KeptAsStored {
  users: ReadonlySet<string>;
  departments: ReadonlySet<string>;
}

const NOTHING_KEPT: KeptAsStored = { users: new Set(), departments: new Set() };

/** A record in a form where equal content gives equal text (optionals and no memberships absent, memberships sorted; `watermark: []` stays: it hides the watermark). */
function canonical(record: object): string {
  const entries = Object.entries(record)
    .filter(([key, value]) => value !== undefined && value !== null && !(key === 'departmentIds' && Array.isArray(value) && value.length === 0))
    // Memberships, and the IM ids (PostgreSQL's jsonb gives their keys back in its own order), sorted.
    .map(
      ([key, value]) =>
        [key, key === 'departmentIds' ? [...(value as string[])].sort() : key === 'im' ? Object.entries(value as object).sort(([a], [b]) => a.localeCompare(b)) : value] as const,
    )
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(entries);
}

/**
 * The change that turns a team's stored state into what the source says: records that are new or
 * differ are upserted, departments the source no longer has are removed, and users it no longer has
 * are removed, or deactivated when they created files (the files keep their creator). Users of the team
 * that the source has are written with their `active` flag, so a re-enabled account is re-activated.
 * Records in `kept` are left as stored.
 */
export function teamChange(desired: DesiredTeam, current: TeamState, kept: KeptAsStored = NOTHING_KEPT): DirectoryChange {
  const upsertTeams = !current.team || current.team.name !== desired.team.name ? [desired.team] : [];

  const currentDepartments = new Map(current.departments.map((department) => [department.id, department]));
  const departments = desired.departments.filter((department) => {
    const old = currentDepartments.get(department.id);
    return !old || canonical({ parentId: null, ...old }) !== canonical({ parentId: null, ...department });
  });
  const keptDepartments = new Set([...desired.departments.map((department) => department.id), ...kept.departments]);

  const currentUsers = new Map(current.users.map((user) => [user.id, user]));
  const users: Array<UserRecord & { active: boolean }> = desired.users
    // A source that has no watermarks, languages or IM identities keeps the ones set in collab-host.
    .map((user) => {
      const old = currentUsers.get(user.id);
      return {
        ...user,
        ...(user.watermark === undefined && old?.watermark !== undefined ? { watermark: old.watermark } : {}),
        ...(user.locale === undefined && old?.locale !== undefined ? { locale: old.locale } : {}),
        ...(user.im === undefined && old?.im !== undefined ? { im: old.im } : {}),
      };
    })
    .filter((user) => {
      const old = currentUsers.get(user.id);
      return !old || canonical(old) !== canonical(user);
    });
  const keptUsers = new Set([...desired.users.map((user) => user.id), ...kept.users]);
  const removeUsers: string[] = [];
  for (const user of current.users) {
    if (keptUsers.has(user.id)) continue;
    if (!current.fileCreators.has(user.id)) removeUsers.push(user.id);
    else if (user.active || (user.departmentIds ?? []).some((id) => !keptDepartments.has(id))) {
      // Kept for their files, deactivated, and out of departments that are going away.
      users.push({ ...user, active: false, departmentIds: (user.departmentIds ?? []).filter((id) => keptDepartments.has(id)) });
    }
  }

  return {
    upsert: { teams: upsertTeams, departments, users },
    remove: { users: removeUsers, departments: current.departments.filter((department) => !keptDepartments.has(department.id)).map((department) => department.id) },
  };
}
