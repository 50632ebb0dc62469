import { expect, it } from 'vitest';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import type { Snapshot } from '../../src/directory-changes/records.js';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { putFileContent } from '../../src/store/directory-writes/directory-writer.js';
import { expectModelEqualsReference, random, type Rng } from '../directory/read-model-checks.js';
import { describeEachStore } from '../helpers/stores.js';

/**
 * A replace that changes little of a stored directory writes only what its diff names (the nightly
 * import of a directory that barely moved): the end state must be exactly the one a rewrite of every row
 * gives, and the serving processes follow it without loading the whole directory again.
 */
const TEAMS = ['t1', 't2'];
const NAMES = ['Ann', 'Bob', '张三', 'Zed', '李四', 'Dana Ma'];
const ROLES = ['viewer', 'commenter', 'editor', 'manager'] as const;

type Company = Required<Snapshot>;

/** In the order they are made: a parent's id sorts before its sub-departments' (a replace removes in id order). */
const departmentId = (number: number) => `d${String(number).padStart(2, '0')}`;

/** A company of departments in trees, members, files and their sharing, by `seed`. */
function company(rng: Rng): Company {
  const departments = Array.from({ length: 12 }, (_, number) => {
    const teamId = TEAMS[number % 2]!;
    // A parent among the earlier departments of the same team, or none.
    const parents = Array.from({ length: number }, (_, earlier) => earlier).filter((earlier) => earlier % 2 === number % 2);
    const parent = parents.length > 0 && rng.next() < 0.7 ? departmentId(rng.pick(parents)) : null;
    return { id: departmentId(number), name: rng.pick(NAMES), teamId, parentId: parent };
  });
  const users = Array.from({ length: 30 }, (_, number) => {
    const teamId = TEAMS[number % 2]!;
    const own = departments.filter((department) => department.teamId === teamId).map((department) => department.id);
    return { id: `u${number}`, name: `${rng.pick(NAMES)} ${number}`, teamId, departmentIds: rng.some(own, 2).sort(), ...(rng.next() < 0.15 ? { active: false } : {}) };
  });
  const files = Array.from({ length: 20 }, (_, number) => {
    const creator = users[number % users.length]!;
    const principals = [...users.map((user) => `user:${user.id}`), ...departments.map((department) => `department:${department.id}`), ...TEAMS.map((team) => `team:${team}`)];
    const sharing = rng
      .some(principals, 4)
      .sort()
      .map((principal) => ({ principal, role: rng.pick(ROLES) }));
    return {
      id: `f${number}`,
      name: `${rng.pick(NAMES)} plan ${number}`,
      type: 'document' as const,
      creatorId: creator.id,
      teamId: creator.teamId,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: `2026-01-0${1 + (number % 9)}T00:00:00Z`,
      ...(sharing.length > 0 ? { sharing } : {}),
    };
  });
  return { teams: TEAMS.map((id) => ({ id, name: `Team ${id}` })), departments, users, files };
}

/** `before` with a few consistent changes: renames, deactivations, sharing, removed files, users and departments. */
function changed(before: Company, rng: Rng): Company {
  const next: Company = JSON.parse(JSON.stringify(before)) as Company;
  const kinds = rng.some(['rename', 'deactivate', 'share', 'remove file', 'remove user', 'remove department', 'move department', 'new user'], 4);
  for (const kind of kinds) {
    if (kind === 'rename') rng.pick(next.users).name = `${rng.pick(NAMES)} renamed`;
    if (kind === 'deactivate') {
      const user = rng.pick(next.users);
      if (user.active === false) delete user.active;
      else user.active = false;
    }
    if (kind === 'share') {
      const file = rng.pick(next.files);
      const sharing = [{ principal: `department:${rng.pick(next.departments).id}`, role: rng.pick(ROLES) }];
      if (rng.next() < 0.3) delete file.sharing;
      else file.sharing = sharing;
    }
    if (kind === 'remove file' && next.files.length > 1) next.files.splice(Math.floor(rng.next() * next.files.length), 1);
    if (kind === 'remove user') {
      const creators = new Set(next.files.map((file) => file.creatorId));
      const leaver = next.users.find((user) => !creators.has(user.id));
      if (leaver) {
        next.users = next.users.filter((user) => user !== leaver);
        for (const file of next.files) dropPrincipal(file, `user:${leaver.id}`);
      }
    }
    if (kind === 'remove department' || kind === 'move department') {
      // A removal takes one with sub-departments where there is one.
      const parents = next.departments.filter((one) => next.departments.some((child) => child.parentId === one.id));
      const department = kind === 'remove department' && parents.length > 0 ? rng.pick(parents) : rng.pick(next.departments);
      // Its sub-departments go with it (a removal of a parent and its children in one change), or move up.
      const removing = kind === 'remove department' ? subtree(next, department.id) : new Set<string>();
      if (kind === 'move department') department.parentId = null;
      next.departments = next.departments.filter((one) => !removing.has(one.id));
      for (const user of next.users) {
        if (user.departmentIds) user.departmentIds = user.departmentIds.filter((id) => !removing.has(id));
        if (user.departmentIds?.length === 0) delete user.departmentIds;
      }
      for (const file of next.files) for (const id of removing) dropPrincipal(file, `department:${id}`);
    }
    if (kind === 'new user') next.users.push({ id: `n${Math.floor(rng.next() * 1e6)}`, name: rng.pick(NAMES), teamId: 't1' });
  }
  return next;
}

function subtree(snapshot: Company, root: string): Set<string> {
  const ids = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const department of snapshot.departments)
      if (department.parentId !== null && department.parentId !== undefined && ids.has(department.parentId) && !ids.has(department.id)) {
        ids.add(department.id);
        grew = true;
      }
  }
  return ids;
}

function dropPrincipal(file: Company['files'][number], principal: string): void {
  if (!file.sharing) return;
  file.sharing = file.sharing.filter((entry) => entry.principal !== principal);
  if (file.sharing.length === 0) delete file.sharing;
}

/** What a replace leaves: the export, and the rows themselves (grants, memberships, closure, stored bytes), those no record reaches included. */
async function state(store: OpenDatabase) {
  return {
    snapshot: await exportSnapshot(store.db),
    grants: await store.db.selectFrom('file_grants').selectAll().orderBy('file_id').orderBy('principal_kind').orderBy('principal_id').execute(),
    memberships: await store.db.selectFrom('user_departments').selectAll().orderBy('user_id').orderBy('department_id').execute(),
    closure: await store.db.selectFrom('department_ancestors').selectAll().orderBy('department_id').orderBy('ancestor_id').execute(),
    contents: (await store.db.selectFrom('file_contents').select('file_id').orderBy('file_id').execute()).map((row) => row.file_id),
  };
}

/**
 * Rows a DBA's SQL leaves that no record reaches: grants to a principal that does not exist and of a rank
 * that is no role, a membership of a department that does not exist, bytes of a file that does not exist
 * yet (`newFileId`, which the next snapshot creates).
 */
async function unreachableRows(store: OpenDatabase, fileId: string, newFileId: string): Promise<void> {
  await store.db
    .insertInto('file_grants')
    .values([
      { file_id: fileId, principal_kind: 'user', principal_id: 'ghost', role_rank: 4 },
      { file_id: fileId, principal_kind: 'team', principal_id: 't1', role_rank: 10 },
      { file_id: 'no-such-file', principal_kind: 'user', principal_id: 'u1', role_rank: 1 },
    ])
    .execute();
  await store.db.insertInto('user_departments').values({ user_id: 'u1', department_id: 'gone' }).execute();
  await putFileContent(store.db, newFileId, 'text/plain', Buffer.from('left behind'));
}

describeEachStore('a replace that changes little', (store) => {
  it('says what it does: the rewrite builds indexes and refreshes statistics, an unchanged replace does neither', async () => {
    const snapshot = company(random(7));
    const phases = async () => {
      const seen: string[] = [];
      const result = await importSnapshot(directoryChanges(store()), snapshot, { replace: true, progress: { step: (phase) => seen.push(phase), advance: () => undefined } });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      return seen;
    };
    await importSnapshot(directoryChanges(store()), { teams: [], departments: [], users: [], files: [] }, { replace: true, allowEmpty: true });
    expect(await phases()).toEqual(expect.arrayContaining(['building indexes', 'refreshing the statistics']));
    const again = await phases();
    expect(again).toContain('writing rows');
    expect(again).not.toContain('building indexes');
    expect(again).not.toContain('refreshing the statistics');
  });

  it('leaves what a rewrite of every row leaves, and the read model follows it without a whole reload', async () => {
    let wholeLoads = 0;
    const source = new StoreModelSource(store(), { afterWholeLoad: () => (wholeLoads += 1) });
    const changes = directoryChanges(store());
    const replace = async (snapshot: Snapshot, allowEmpty = false) => {
      const result = await importSnapshot(changes, snapshot, { replace: true, allowEmpty });
      expect(result.ok, JSON.stringify(result)).toBe(true);
    };
    try {
      const rng = random(21);
      let current = company(rng);
      await replace(current);
      await source.catchUp();
      for (let step = 0; step < 8; step += 1) {
        const next = changed(current, rng);
        // Bytes stored since: a replace whose snapshot brings none drops them, as a rewrite does.
        if (step % 3 === 0) await putFileContent(store().db, next.files[0]!.id, 'text/plain', Buffer.from(`bytes ${step}`));
        if (step % 3 === 1) {
          const newFile = { ...next.files[0]!, id: `new-${step}` };
          delete newFile.sharing;
          next.files.push(newFile);
          await unreachableRows(store(), next.files[0]!.id, newFile.id);
        }
        const loadsBefore = wholeLoads;
        await replace(next);
        await source.catchUp();
        expect(wholeLoads, `step ${step}: the read model caught up with what changed`).toBe(loadsBefore);
        await expectModelEqualsReference(store(), new ModelDirectory(source, SqlDirectory.over(store())), `step ${step}`, 'every row');
        const written = await state(store());

        // The same snapshot written by a rewrite of every row: from an empty directory.
        await replace({ teams: [], departments: [], users: [], files: [] }, true);
        await replace(next);
        expect(await state(store()), `step ${step}`).toEqual(written);
        await source.catchUp();
        expect(written.contents).toEqual([]);
        current = next;
      }
    } finally {
      await source.close();
    }
  }, 120_000);
});
