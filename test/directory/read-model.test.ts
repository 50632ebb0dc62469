import { sql } from 'kysely';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { MODEL_SEARCH_BOUNDS } from '../../src/directory/read-model/model-search.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { ROLES, type Grant, type PrincipalKind } from '../../src/directory/types.js';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { putFileContent, rebuildDepartmentClosure, replaceGrants, upsertDepartments } from '../../src/store/directory-writes/directory-writer.js';
import { upsertFiles, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { describeEachStore, dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { referenceFromRows } from './read-model-reference.js';
import { searchReference } from './search-reference.js';

/** A small deterministic generator (mulberry32), so a failure repeats with its seed. */
function random(seed: number) {
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

const TEAMS = ['t1', 't2'];
const DEPARTMENTS = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'];
const USERS = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'];
const FILES = ['f1', 'f2', 'f3', 'f4'];
const NAMES = ['Ann', 'Bob', '张三', 'ann', '𝒜lpha', '\uff21nn', 'Zed'];

type Rng = ReturnType<typeof random>;

/** One random write, through the store's writers or as a DBA's SQL. */
async function randomWrite(store: OpenDatabase, rng: Rng): Promise<string> {
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

const KEYWORDS = ['', 'a', 'an', 'ann', 'Ａnn', 'zh', 'zhang', 'zs', '张', '张三', 'u1', 'example', 'bo', 'lpha', '𝒜', 'ed'];

/** Every search kind and both readable-file lists, for every user as the viewer, against the reference. */
async function expectSearchEqualsReference(store: OpenDatabase, directory: ModelDirectory, step: string, keywords: readonly string[]): Promise<void> {
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
async function expectModelEqualsReference(store: OpenDatabase, directory: ModelDirectory, step: string): Promise<void> {
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

describeEachStore('the read model, after random directory writes', (store) => {
  let source: StoreModelSource;
  beforeAll(() => {
    source = new StoreModelSource(store());
  });
  afterAll(() => source.close());

  it('answers every read as a brute-force reference computes it from the rows', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    // Every user here may read few files; this one takes the path of users who may read many.
    const walking = new ModelDirectory(source, new SqlDirectory(store().db), { ...MODEL_SEARCH_BOUNDS, readableScan: 0 });
    for (const seed of [1, 2, 3]) {
      const rng = random(seed);
      for (let step = 0; step < 25; step += 1) {
        const writes = [];
        for (let count = 1 + Math.floor(rng.next() * 3); count > 0; count -= 1) writes.push(await randomWrite(store(), rng));
        await expectModelEqualsReference(store(), directory, `seed ${seed} step ${step} (${writes.join(', ')})`);
        // Searches every few steps (each compares some hundreds of answers): the writes between pile up.
        if (step % 4 === 3) {
          const keywords = ['', ...rng.some(KEYWORDS, 3)];
          await expectSearchEqualsReference(store(), directory, `seed ${seed} step ${step} (${writes.join(', ')})`, keywords);
          await expectSearchEqualsReference(store(), walking, `walking: seed ${seed} step ${step} (${writes.join(', ')})`, keywords);
        }
      }
    }
  }, 240_000);

  it('after an import that replaces the directory (the feed says "reload" once), answers as the reference; later writes still follow', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    const rng = random(7);
    for (let count = 0; count < 10; count += 1) await randomWrite(store(), rng);
    await expectModelEqualsReference(store(), directory, 'before the import');
    const file = (id: string, name: string, sharing: unknown[]) => ({
      id,
      name,
      type: 'document',
      creatorId: 'u2',
      teamId: 't2',
      createdAt: '2026-03-01T00:00:00Z',
      updatedAt: '2026-03-02T00:00:00Z',
      sharing,
    });
    const snapshot = {
      teams: [{ id: 't2', name: 'Zed' }],
      departments: [
        { id: 'd2', name: '张三', teamId: 't2', parentId: null },
        { id: 'd5', name: 'Bob', teamId: 't2', parentId: 'd2' },
      ],
      users: [
        { id: 'u2', name: 'Ann', teamId: 't2', departmentIds: ['d5'] },
        { id: 'u5', name: '张三', teamId: 't2', departmentIds: ['d2', 'd5'], active: false },
        { id: 'u7', name: 'Zed', teamId: 't2' },
      ],
      files: [
        file('f1', 'Plan', [
          { principal: 'user:u7', role: 'editor' },
          { principal: 'department:d2', role: 'viewer' },
        ]),
        file('f4', '计划', [{ principal: 'team:t2', role: 'commenter' }]),
      ],
    };
    const versions = () => store().db.selectFrom('directory_versions').select(['id', 'version']).orderBy('id').execute();
    const before = await versions();
    const result = await importSnapshot(directoryChanges(store()), snapshot, { replace: true, allowEmpty: true });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const feed = await store().db.selectFrom('directory_changes').select(['subject', 'key']).execute();
    expect(feed).toEqual([{ subject: 'all', key: '' }]);
    // Every directory area's version moved (the caches keyed on them start afresh).
    const after = await versions();
    expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id));
    after.forEach((row, index) => expect(Number(row.version)).toBeGreaterThan(Number(before[index]!.version)));
    await expectModelEqualsReference(store(), directory, 'after the import');
    expect(await directory.getUser('u1')).toBeUndefined();
    expect(await directory.getGrantedRole('f1', 'u7')).toBe('editor');
    for (let count = 0; count < 10; count += 1) {
      const write = await randomWrite(store(), rng);
      await expectModelEqualsReference(store(), directory, `after the import, then ${write}`);
    }
    expect((await store().db.selectFrom('directory_changes').select('subject').execute()).length).toBeGreaterThan(1);
  }, 120_000);

  it('a model loaded afresh from the same rows answers the same', async () => {
    const fresh = new StoreModelSource(store());
    const directory = new ModelDirectory(fresh, new SqlDirectory(store().db));
    await expectModelEqualsReference(store(), directory, 'fresh load');
    await expectSearchEqualsReference(store(), directory, 'fresh load', KEYWORDS);
    fresh.close();
  }, 60_000);

  it("a model loaded two rows per query (every page edge crossed, a file's grants split over pages) answers the same", async () => {
    const paged = new StoreModelSource(store(), { loadPageRows: 2 });
    const directory = new ModelDirectory(paged, new SqlDirectory(store().db));
    await expectModelEqualsReference(store(), directory, 'paged load');
    await expectSearchEqualsReference(store(), directory, 'paged load', KEYWORDS);
    paged.close();
  }, 60_000);
});

/** A session outside collab-host's pools, as a DBA's or another program's: plain SQL statements. */
async function rawSession(dialect: 'postgres' | 'mysql', url: string): Promise<{ query(text: string): Promise<unknown>; end(): Promise<void> }> {
  if (dialect === 'mysql') return createConnection(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

// Two instances on one database: PostgreSQL and MySQL (SQLite has one writing process, docs/scaling.md).
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`the read model on two instances [${dialect}]`, () => {
    it('a write on one instance is seen by the other at its next catch-up; one made while the model loads is not missed; a restart rebuilds it', async () => {
      const store = await freshStore(dialect);
      const drop = store.drop;
      const first = await store.open();
      const second = await store.open();
      const writer = await rawSession(dialect, store.url);
      const sources: StoreModelSource[] = [];
      try {
        await upsertTeams(first.db, [{ id: 't1', name: 'Acme' }]);
        // A write in flight while the second instance loads: it commits after the load's snapshot.
        await writer.query('BEGIN');
        await writer.query(`INSERT INTO teams (id, name) VALUES ('t2', 'Late')`);
        const onSecond = new StoreModelSource(second);
        sources.push(onSecond);
        await onSecond.loaded;
        expect(onSecond.model.teams.has('t2')).toBe(false);
        await writer.query('COMMIT');
        await onSecond.catchUp();
        expect(onSecond.model.teams.get('t2')).toEqual({ id: 't2', name: 'Late' });

        // A write through the first instance: the second sees it at its next read of the feed.
        const onFirst = new StoreModelSource(first);
        sources.push(onFirst);
        const firstDirectory = new ModelDirectory(onFirst, new SqlDirectory(first.db));
        await upsertUsers(first.db, [{ id: 'u1', name: 'Ann', email: null, avatar: null, teamId: 't1', watermark: null, departmentIds: [] }]);
        expect((await firstDirectory.getUser('u1'))?.name).toBe('Ann');
        const secondDirectory = new ModelDirectory(onSecond, new SqlDirectory(second.db));
        // The second instance wrote nothing: without a catch-up (its poll) it still answers from before.
        expect(await secondDirectory.getUser('u1')).toBeUndefined();
        await onSecond.catchUp();
        expect((await secondDirectory.getUser('u1'))?.name).toBe('Ann');

        // A DBA's TRUNCATE: the feed says `all`, and the model is loaded again.
        await replaceGrants(first.db, ['f1'], [{ fileId: 'f1', principalKind: 'user', principalId: 'u1', role: 'editor' }]);
        await onSecond.catchUp();
        expect(onSecond.model.grants.has('f1')).toBe(true);
        // MySQL fires no trigger on TRUNCATE (docs/operations.md): there a DBA empties the table with DELETE.
        await writer.query(dialect === 'mysql' ? 'DELETE FROM file_grants' : 'TRUNCATE file_grants');
        await onSecond.catchUp();
        expect(onSecond.model.grants.size).toBe(0);

        // Polling: the second instance follows on its own.
        const polling = new StoreModelSource(second, { pollMs: 20 });
        sources.push(polling);
        await polling.loaded;
        await upsertTeams(first.db, [{ id: 't3', name: 'Polled' }]);
        await vi.waitFor(() => expect(polling.model.teams.get('t3')?.name).toBe('Polled'), { timeout: 5000, interval: 20 });

        // A restart: a new model on the same store holds everything.
        const restarted = new StoreModelSource(second);
        sources.push(restarted);
        await restarted.loaded;
        expect([...restarted.model.teams.keys()].sort()).toEqual(['t1', 't2', 't3']);
        expect(restarted.model.users.get('u1')?.name).toBe('Ann');
      } finally {
        for (const source of sources) source.close();
        await writer.end();
        await first.close();
        await second.close();
        await drop();
      }
    }, 60_000);
  });
