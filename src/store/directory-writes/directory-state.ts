import type { DepartmentRecord, TeamRecord, UserRecord } from '../../directory-changes/records.js';
import { dialectSql } from '../dialect/dialect-sql-for.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/** A user record as the snapshot writes it, with the `active` flag of `users.active`. */
export type UserState = UserRecord & { active: boolean };

/** A team's part of the directory, as records (what a sync source compares its own view with). */
export interface TeamState {
  team: TeamRecord | undefined;
  departments: DepartmentRecord[];
  users: UserState[];
  /** Ids of the team's users who created files (they are deactivated rather than removed). */
  fileCreators: Set<string>;
}

const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) result.push(items.slice(start, start + CHUNK));
  return result;
}

function departmentRecord(row: { id: string; name: string; team_id: string; parent_id: string | null }): DepartmentRecord {
  return { id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id };
}

type UserRow = {
  id: string;
  name: string;
  email: string | null;
  avatar: string | null;
  team_id: string | null;
  watermark: string | null;
  active: number;
  locale: string | null;
  im: string | null;
};

async function userStates(db: Db, rows: UserRow[]): Promise<UserState[]> {
  const membership = new Map<string, string[]>();
  for (const chunk of chunks(rows.map((row) => row.id))) {
    const links = await db.selectFrom('user_departments').select(['user_id', 'department_id']).where('user_id', 'in', chunk).orderBy('department_id').execute();
    for (const link of links) {
      const list = membership.get(link.user_id);
      if (list) list.push(link.department_id);
      else membership.set(link.user_id, [link.department_id]);
    }
  }
  return rows.map((row) => {
    const user: UserState = { id: row.id, name: row.name, departmentIds: membership.get(row.id) ?? [], active: row.active !== 0 };
    if (row.email !== null) user.email = row.email;
    if (row.avatar !== null) user.avatar = row.avatar;
    if (row.team_id !== null) user.teamId = row.team_id;
    if (row.watermark !== null) user.watermark = JSON.parse(row.watermark) as string[];
    if (row.locale !== null) user.locale = row.locale;
    if (row.im !== null) user.im = JSON.parse(row.im) as NonNullable<UserState['im']>;
    return user;
  });
}

const USER_COLUMNS = ['id', 'name', 'email', 'avatar', 'team_id', 'watermark', 'active', 'locale', 'im'] as const;

/** The team, its departments and its users (with memberships and `active`), ordered by id. */
export async function readTeamState(db: Db, teamId: string): Promise<TeamState> {
  const team = await db.selectFrom('teams').select(['id', 'name']).where('id', '=', teamId).executeTakeFirst();
  const departments = (await db.selectFrom('departments').select(['id', 'name', 'team_id', 'parent_id']).where('team_id', '=', teamId).orderBy('id').execute()).map(
    departmentRecord,
  );
  const users = await userStates(db, await db.selectFrom('users').select(USER_COLUMNS).where('team_id', '=', teamId).orderBy('id').execute());
  const creators = await db
    .selectFrom('files')
    .innerJoin('users', 'users.id', 'files.creator_id')
    .select('files.creator_id')
    .distinct()
    .where('users.team_id', '=', teamId)
    .execute();
  return { team, departments, users, fileCreators: new Set(creators.map((row) => row.creator_id)) };
}

const TEAM = new Statement('SELECT id, name FROM teams WHERE id = $1');

/** The team, if it exists (one fixed statement: every SCIM write asks). */
export async function readTeam(db: Db, id: string): Promise<TeamRecord | undefined> {
  return (await TEAM.run<TeamRecord>(db, [id]))[0];
}

/** The departments among `ids`. */
export async function readDepartments(db: Db, ids: readonly string[]): Promise<DepartmentRecord[]> {
  const found: DepartmentRecord[] = [];
  for (const chunk of chunks(ids)) {
    found.push(...(await db.selectFrom('departments').select(['id', 'name', 'team_id', 'parent_id']).where('id', 'in', chunk).execute()).map(departmentRecord));
  }
  return found;
}

/** The users among `ids`, with memberships and `active`. */
export async function readUsers(db: Db, ids: readonly string[]): Promise<UserState[]> {
  const rows: UserRow[] = [];
  for (const chunk of chunks(ids)) rows.push(...(await db.selectFrom('users').select(USER_COLUMNS).where('id', 'in', chunk).execute()));
  return userStates(db, rows);
}

/** The team's users whose e-mail is `email` (case-insensitive), with memberships and `active`. */
export async function readTeamUsersByEmail(db: Db, teamId: string, email: string): Promise<UserState[]> {
  return userStates(db, await usersByEmail(db).run<UserRow>(db, [teamId, email.toLowerCase()]));
}

/** One fixed statement per dialect: every SCIM create asks (served by index users_team_email, migrations 185 and 200). */
const USERS_BY_EMAIL = new Map<string, Statement>();

function usersByEmail(db: Db): Statement {
  const condition = dialectSql(db).emailIs('$2');
  let statement = USERS_BY_EMAIL.get(condition);
  if (!statement) {
    statement = new Statement(`SELECT ${USER_COLUMNS.join(', ')} FROM users WHERE team_id = $1 AND ${condition} ORDER BY id`);
    USERS_BY_EMAIL.set(condition, statement);
  }
  return statement;
}

/** The ids among `ids` of users who created at least one file. */
export async function readFileCreators(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of chunks(ids)) {
    for (const row of await db.selectFrom('files').select('creator_id').distinct().where('creator_id', 'in', chunk).execute()) found.add(row.creator_id);
  }
  return found;
}

/** The members of a department (direct members, not those of sub-departments). */
export async function readDepartmentMemberIds(db: Db, departmentId: string): Promise<string[]> {
  const rows = await db.selectFrom('user_departments').select('user_id').where('department_id', '=', departmentId).orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}
