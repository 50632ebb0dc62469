import { sql } from 'kysely';
import type { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { ROLES, type Grant, type PrincipalKind } from '../../src/directory/types.js';
import {
  putFileContent,
  rebuildDepartmentClosure,
  replaceGrants,
  upsertDepartments,
  upsertFiles,
  upsertTeams,
  upsertUsers,
} from '../../src/store/directory-writes/directory-writer.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { expect } from 'vitest';
import { referenceFromRows } from './read-model-reference.js';
import { searchReference } from './search-reference.js';

/**
 * The read model's answers against a brute-force reference computed from the store's rows: the checks the
 * model-based tests run after each random write (test/directory/read-model*.test.ts).
 */

/** A small deterministic generator (mulberry32), so a failure repeats with its seed. */
export function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const some = <T>(items: readonly T[], most: number): T[] => [...new Set(Array.from({ length: Math.floor(next() * (most + 1)) }, () => pick(items)))];
  return { next, pick, some };
}

export const TEAMS = ['t1', 't2'];
export const DEPARTMENTS = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'];
export const USERS = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'];
export const FILES = ['f1', 'f2', 'f3', 'f4'];
export const NAMES = ['Ann', 'Bob', '张三', 'ann', '𝒜lpha', '\uff21nn', 'Zed'];

/** The ids the checks ask about: fixed ones, or every id the rows hold (writers that make their own ids: SCIM, LDAP). */
export type Universe = { TEAMS: readonly string[]; DEPARTMENTS: readonly string[]; USERS: readonly string[]; FILES: readonly string[] } | 'every row';

export const FIXED_UNIVERSE: Universe = { TEAMS, DEPARTMENTS, USERS, FILES };

/** Every id the rows hold now, by kind. */
export async function idsOfRows(store: OpenDatabase) {
  const ids = async (table: 'teams' | 'departments' | 'users' | 'files') => (await store.db.selectFrom(table).select('id').orderBy('id').execute()).map((row) => row.id);
  return { TEAMS: await ids('teams'), DEPARTMENTS: await ids('departments'), USERS: await ids('users'), FILES: await ids('files') };
}

async function universeOf(store: OpenDatabase, universe: Universe) {
  return universe === 'every row' ? idsOfRows(store) : universe;
}

export type Rng = ReturnType<typeof random>;

/** One random write, through the store's writers or as a DBA's SQL. */
export async function randomWrite(store: OpenDatabase, rng: Rng): Promise<string> {
  const { db } = store;
  const kind = rng.pick(['team', 'department', 'user', 'user', 'file', 'grants', 'grants', 'content', 'activity', 'sql']);
  switch (kind) {
    case 'team':
      await upsertTeams(db, [{ id: rng.pick(TEAMS), name: rng.pick(NAMES) }]);
      return kind;
    case 'department': {
      const id = rng.pick(DEPARTMENTS);
      const parentId = rng.next() < 0.3 ? null : rng.pick([...DEPARTMENTS.filter((d) => d !== id), 'gone']);
      await upsertDepartments(db, [{ id, name: rng.pick(NAMES), teamId: rng.pick(TEAMS), parentId }]);
      await rebuildDepartmentClosure(db);
      return kind;
    }
    case 'user': {
      const id = rng.pick(USERS);
      await upsertUsers(db, [
        {
          id,
          name: rng.pick(NAMES),
          email: rng.next() < 0.5 ? null : `${id}@example.com`,
          avatar: null,
          teamId: rng.next() < 0.2 ? null : rng.pick(TEAMS),
          watermark: rng.next() < 0.5 ? null : ['x'],
          active: rng.next() < 0.8,
          departmentIds: rng.some([...DEPARTMENTS, 'nowhere'], 3),
        },
      ]);
      return kind;
    }
    case 'file': {
      const id = rng.pick(FILES);
      await upsertFiles(db, [
        {
          id,
          name: rng.pick(NAMES),
          type: 'document',
          creatorId: rng.pick(USERS),
          teamId: rng.pick([...TEAMS, null]),
          createdAt: '2026-01-01T00:00:00Z',
          updatedAt: `2026-01-0${1 + Math.floor(rng.next() * 9)}T00:00:00Z`,
          views: rng.next() < 0.5 ? null : 3,
          ext: null,
          downloadUrl: null,
          fullUrl: null,
          restrictions: { copy: rng.next() < 0.5, export: rng.next() < 0.5 },
          status: rng.pick(['active', 'pending']),
        },
      ]);
      return kind;
    }
    case 'grants': {
      const fileId = rng.pick(FILES);
      const grants: Grant[] = [];
      for (const principalKind of ['user', 'department', 'team'] as PrincipalKind[]) {
        const ids = principalKind === 'user' ? USERS : principalKind === 'department' ? DEPARTMENTS : TEAMS;
        for (const principalId of rng.some(ids, 2)) grants.push({ fileId, principalKind, principalId, role: rng.pick(ROLES) });
      }
      await replaceGrants(db, [fileId], grants);
      return kind;
    }
    case 'activity': {
      // What ranks searches (mentions either way, who worked on which file), written as events do.
      const mention = rng.next() < 0.5;
      await db
        .insertInto('activity')
        .values({
          user_id: rng.pick(USERS),
          kind: mention ? 'mention' : 'edit',
          occurred_at: `2026-03-0${1 + Math.floor(rng.next() * 9)}T00:00:00Z`,
          file_id: rng.next() < 0.8 ? rng.pick(FILES) : null,
          related_user_id: mention ? rng.pick(USERS) : null,
        })
        .execute();
      return kind;
    }
    case 'content':
      await putFileContent(db, rng.pick(FILES), 'text/plain', Buffer.from('x'));
      return kind;
    default: {
      const statement = rng.pick([
        sql`UPDATE users SET active = 1 - active WHERE id = ${rng.pick(USERS)}`,
        sql`DELETE FROM user_departments WHERE department_id = ${rng.pick(DEPARTMENTS)}`,
        sql`UPDATE departments SET name = ${rng.pick(NAMES)} WHERE id = ${rng.pick(DEPARTMENTS)}`,
        sql`DELETE FROM users WHERE id = ${rng.pick(USERS)}`,
        sql`DELETE FROM file_grants WHERE principal_kind = 'team'`,
        sql`UPDATE files SET updated_at = '2026-02-01T00:00:00Z', views = 9 WHERE id = ${rng.pick(FILES)}`,
        sql`DELETE FROM file_contents WHERE file_id = ${rng.pick(FILES)}`,
      ]);
      await statement.execute(db);
      return 'sql';
    }
  }
}

export const KEYWORDS = ['', 'a', 'an', 'ann', 'Ａnn', 'zh', 'zhang', 'zs', '张', '张三', 'u1', 'example', 'bo', 'lpha', '𝒜', 'ed'];

/** Every search kind and both readable-file lists, for every user as the viewer, against the reference. */
export async function expectSearchEqualsReference(
  store: OpenDatabase,
  directory: ModelDirectory,
  step: string,
  keywords: readonly string[],
  universe: Universe = FIXED_UNIVERSE,
): Promise<void> {
  const { USERS, TEAMS, FILES } = await universeOf(store, universe);
  const reference = await searchReference(store.db);
  const all = { offset: 0, limit: 1000 };
  const ids = (found: { items: Array<{ id: string }> }) => found.items.map((item) => item.id);
  const filesOf = (found: { items: Array<{ file: { id: string }; grantedRole: unknown }> }) => found.items.map((item) => ({ id: item.file.id, grantedRole: item.grantedRole }));
  for (const viewerId of USERS) {
    for (const text of keywords) {
      const keyword = normaliseKeyword(text);
      const at = `${step} viewer ${viewerId} keyword ${JSON.stringify(text)}`;
      const query = { viewerId, keyword, page: all };
      for (const teamId of TEAMS) {
        const members = reference.teamMembers(viewerId, text, teamId);
        expect(ids(await directory.searchTeamMembers({ ...query, teamId })), `${at} team ${teamId}`).toEqual(members);
        const page = await directory.searchTeamMembers({ ...query, teamId, page: { offset: 1, limit: 2 } });
        expect({ total: page.total, ids: ids(page) }, `${at} team page ${teamId}`).toEqual({ total: members.length, ids: members.slice(1, 3) });
        const departments = reference.departments(viewerId, text, teamId);
        expect((await directory.searchDepartments({ ...query, teamId })).items, `${at} departments ${teamId}`).toEqual(departments);
      }
      for (const fileId of FILES) {
        expect(ids(await directory.searchCollaborators({ ...query, fileId })), `${at} collaborators ${fileId}`).toEqual(reference.collaborators(viewerId, text, fileId));
      }
      for (const fileId of [...FILES, null]) {
        const found = await directory.searchRecentContacts({ ...query, fileId });
        expect(ids(found), `${at} recent contacts ${fileId}`).toEqual(reference.recentContacts(viewerId, text, fileId));
      }
      const files = await directory.searchReadableFiles({ ...query, excludeFileId: 'f2' });
      const expected = reference.readableFiles(viewerId, text, 'f2');
      expect({ total: files.total, files: filesOf(files) }, `${at} files`).toEqual({ total: expected.length, files: expected });
      const filePage = await directory.searchReadableFiles({ ...query, excludeFileId: 'f2', page: { offset: 1, limit: 2 } });
      expect({ total: filePage.total, files: filesOf(filePage) }, `${at} files page`).toEqual({ total: expected.length, files: expected.slice(1, 3) });
    }
    for (const options of [
      { limit: 3, orderBy: 'updated_at' as const },
      { limit: 10, orderBy: 'created_at' as const, types: ['document'] },
      { limit: 10, orderBy: 'updated_at' as const, types: ['sheet'] },
    ]) {
      const listed = (await directory.listReadableFiles(viewerId, options)).map((item) => ({ id: item.file.id, grantedRole: item.grantedRole }));
      expect(listed, `${step} readable files ${viewerId} ${JSON.stringify(options)}`).toEqual(reference.listReadableFiles(viewerId, options));
    }
  }
}

/** Every read of the port the model answers, for every id, against the reference. */
export async function expectModelEqualsReference(store: OpenDatabase, directory: ModelDirectory, step: string, universe: Universe = FIXED_UNIVERSE): Promise<void> {
  const { USERS, TEAMS, DEPARTMENTS, FILES } = await universeOf(store, universe);
  const reference = await referenceFromRows(store.db);
  const sqlDirectory = new SqlDirectory(store.db);
  for (const userId of [...USERS, 'nobody']) {
    expect(await directory.getUser(userId), `${step} user ${userId}`).toEqual(reference.getUser(userId));
    expect(await directory.listDepartmentPaths(userId), `${step} paths ${userId}`).toEqual(reference.listDepartmentPaths(userId));
    for (const fileId of FILES) {
      expect(await directory.getGrantedRole(fileId, userId), `${step} role ${fileId} ${userId}`).toBe(reference.getGrantedRole(fileId, userId));
      const viewed = await directory.getFileForViewer(fileId, userId);
      if (viewed) expect(viewed.grantedRole).toBe(reference.getGrantedRole(fileId, userId));
      // The file itself as the SQL directory reads it (every column of the row).
      expect(viewed?.file, `${step} file ${fileId}`).toEqual(await sqlDirectory.getFile(fileId));
    }
  }
  expect(await directory.getUsers([...USERS, 'nobody']).then((users) => users.sort((a, b) => (a.id < b.id ? -1 : 1)))).toEqual(
    reference.users.filter((user) => USERS.includes(user.id)).sort((a, b) => (a.id < b.id ? -1 : 1)),
  );
  for (const teamId of [...TEAMS, 'nope']) {
    expect(await directory.getTeam(teamId)).toEqual(reference.getTeam(teamId));
    expect(await directory.countTeamMembers(teamId), `${step} team count ${teamId}`).toBe(reference.countTeamMembers(teamId));
    expect(await directory.listTeamMembers(teamId, null), `${step} team ${teamId}`).toEqual(reference.listTeamMembers(teamId));
    expect(await directory.listTeamMembers(teamId, { offset: 1, limit: 2 })).toEqual(reference.listTeamMembers(teamId).slice(1, 3));
    for (const parentId of [null, ...DEPARTMENTS]) {
      expect(await directory.listChildDepartments(teamId, parentId), `${step} children ${teamId} ${parentId}`).toEqual(reference.listChildDepartments(teamId, parentId));
    }
  }
  for (const departmentId of [...DEPARTMENTS, 'nowhere']) {
    expect(await directory.getDepartment(departmentId), `${step} department ${departmentId}`).toEqual(reference.getDepartment(departmentId));
    if (reference.getDepartment(departmentId)) {
      expect(await directory.countAllDepartmentMembers(departmentId), `${step} count ${departmentId}`).toBe(reference.countAllDepartmentMembers(departmentId));
    }
    expect(await directory.listDepartmentAncestors(departmentId), `${step} ancestors ${departmentId}`).toEqual(reference.listDepartmentAncestors(departmentId));
    const members = reference.listDepartmentMembers(departmentId);
    expect(await directory.listDepartmentMembers(departmentId, { offset: 0, limit: 100 }), `${step} members ${departmentId}`).toEqual({ total: members.length, items: members });
  }
  for (const fileId of FILES) {
    expect(await directory.listDirectGrantees(fileId), `${step} grantees ${fileId}`).toEqual(reference.listDirectGrantees(fileId));
  }
}
