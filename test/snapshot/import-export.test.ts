import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, expect, it } from 'vitest';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { clearDirectory } from '../../src/store/directory-writes/directory-writer.js';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { DEMO_SNAPSHOT_PATH } from '../../src/composition/demo-data.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore, openTestStore } from '../helpers/stores.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const contractsExample = () => JSON.parse(readFileSync(join(FIXTURES, 'contracts-example.json'), 'utf8')) as Record<string, unknown>;

describeEachStore('snapshot import and export', (store, dialect) => {
  const directory = () => new SqlDirectory(store().db);
  const changes = () => directoryChanges(store());
  const countRows = async () => {
    const counts: Record<string, number> = {};
    for (const table of ['teams', 'departments', 'users', 'user_departments', 'files', 'file_grants', 'file_contents'] as const) {
      const row = await store()
        .db.selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    return counts;
  };

  beforeEach(async () => {
    await clearDirectory(store().db);
  });

  it('imports the example of contracts.md and serves what it says', async () => {
    const result = await importSnapshot(changes(), contractsExample(), { baseDir: FIXTURES });
    expect(result).toMatchObject({ ok: true, counts: { teams: 1, departments: 2, users: 2, files: 2, grants: 3, contents: 0 } });
    expect(await directory().getUser('u1')).toEqual({
      id: 'u1',
      name: '张三',
      email: 'zhang@example.com',
      avatar: 'https://…/u1.png',
      teamId: 't1',
      watermark: ['张三', 'zhang@example.com'],
      active: true,
    });
    expect(await directory().listDepartmentPaths('u1')).toEqual([
      [
        { id: 'd1', name: '研发部' },
        { id: 'd2', name: '前端组' },
      ],
    ]);
    // f2 has no teamId: it takes its creator's team.
    expect(await directory().getFile('f2')).toMatchObject({ teamId: 't1', ext: 'docx', downloadUrl: 'https://files.example.com/f2', hasStoredContent: false });
    expect(await directory().getFile('f1')).toMatchObject({ views: 3, restrictions: { copy: false, export: false } });
    // u2 is granted editor directly; u1 reaches d1's viewer grant through d2 and the team's commenter grant.
    expect(await directory().getGrantedRole('f1', 'u2')).toBe('editor');
    expect(await directory().getGrantedRole('f1', 'u1')).toBe('commenter');
  });

  it('refuses the verbatim example (it shares with user u2, whom it does not define) and writes nothing', async () => {
    const verbatim = contractsExample();
    verbatim.users = (verbatim.users as Array<{ id: string }>).filter((user) => user.id !== 'u2');
    const result = await importSnapshot(changes(), verbatim);
    expect(result).toMatchObject({ ok: false, status: 400, code: 'invalid_record', problems: [{ path: '$.files[0].sharing[0].principal', message: 'names unknown user "u2"' }] });
    expect(Object.values(await countRows()).every((count) => count === 0)).toBe(true);
  });

  it('upserts records that point to rows already in the store, and leaves the rest alone', async () => {
    await seedDirectory(store().db);
    const before = await countRows();
    const result = await importSnapshot(changes(), {
      users: [{ id: 'newbie', name: '新人', teamId: 'acme', departmentIds: ['web'] }],
      files: [
        {
          id: 'plan',
          name: '季度计划 v2',
          type: 'documentPro',
          creatorId: 'zhang',
          createdAt: '2024-03-01T08:00:00Z',
          updatedAt: '2024-04-01T08:00:00Z',
          sharing: [
            { principal: 'user:newbie', role: 'commenter' },
            { principal: 'department:sales', role: 'viewer' },
          ],
        },
      ],
    });
    expect(result.ok).toBe(true);
    expect(await countRows()).toEqual({ ...before, users: before.users! + 1, user_departments: before.user_departments! + 1 });
    expect(await directory().getFile('plan')).toMatchObject({ name: '季度计划 v2', teamId: 'acme', views: null });
    // The file's sharing replaced its old grants: lilei's direct editor grant is gone.
    expect(await directory().getGrantedRole('plan', 'lilei')).toBeNull();
    expect(await directory().getGrantedRole('plan', 'newbie')).toBe('commenter');
    expect(await directory().getGrantedRole('plan', 'alice')).toBe('viewer');
    expect((await directory().getUser('olga'))?.name).toBe('Olga Petrova');
  });

  it('re-imports the same snapshot over itself (every record an upsert of an existing row) without change', async () => {
    expect((await importSnapshot(changes(), contractsExample())).ok).toBe(true);
    const first = await exportSnapshot(store().db);
    expect(await importSnapshot(changes(), contractsExample())).toMatchObject({ ok: true, counts: { users: 2, departments: 2 } });
    expect(await exportSnapshot(store().db)).toEqual(first);
  });

  it('leaves out grants whose principal was removed behind its back (a DBA), so the export imports again', async () => {
    expect((await importSnapshot(changes(), contractsExample())).ok).toBe(true);
    // A second file shared with each kind of principal, and with principals that never existed.
    await store()
      .db.insertInto('file_grants')
      .values([
        { file_id: 'f2', principal_kind: 'user', principal_id: 'u2', role_rank: 2 },
        { file_id: 'f2', principal_kind: 'department', principal_id: 'd2', role_rank: 1 },
        { file_id: 'f2', principal_kind: 'user', principal_id: 'ghost', role_rank: 3 },
        { file_id: 'f2', principal_kind: 'department', principal_id: 'ghost', role_rank: 3 },
        { file_id: 'f2', principal_kind: 'team', principal_id: 'ghost', role_rank: 3 },
      ])
      .execute();
    await store().db.deleteFrom('user_departments').where('user_id', '=', 'u1').execute();
    await store().db.deleteFrom('departments').where('id', '=', 'd2').execute();
    const exported = await exportSnapshot(store().db);
    const sharingOf = (id: string) => exported.files.find((file) => file.id === id)?.sharing;
    expect(sharingOf('f1')).toEqual([
      { principal: 'department:d1', role: 'viewer' },
      { principal: 'team:t1', role: 'commenter' },
      { principal: 'user:u2', role: 'editor' },
    ]);
    expect(sharingOf('f2')).toEqual([{ principal: 'user:u2', role: 'commenter' }]);
    expect((await importSnapshot(changes(), exported, { replace: true })).ok).toBe(true);
    expect(await exportSnapshot(store().db)).toEqual(exported);
  });

  it('finds a cycle that runs through departments already in the store, and writes nothing', async () => {
    await seedDirectory(store().db);
    const before = await countRows();
    const result = await importSnapshot(changes(), { departments: [{ id: 'rd', name: '研发部', teamId: 'acme', parentId: 'web' }] });
    expect(result).toMatchObject({ ok: false, problems: [{ path: '$.departments[0].parentId', message: 'makes a cycle: rd -> web -> fe -> rd' }] });
    expect(await countRows()).toEqual(before);
    expect((await directory().getDepartment('rd'))?.parentId).toBeNull();
  });

  it('checks references against the store on upsert, but not with --replace', async () => {
    await seedDirectory(store().db);
    const snapshot = { users: [{ id: 'newbie', name: 'New', teamId: 'acme', departmentIds: ['fe'] }] };
    expect((await importSnapshot(changes(), snapshot)).ok).toBe(true);
    expect(await importSnapshot(changes(), snapshot, { replace: true })).toMatchObject({
      ok: false,
      problems: [
        { path: '$.users[0].teamId', message: 'names unknown team "acme"' },
        { path: '$.users[0].departmentIds[0]', message: 'names unknown department "fe"' },
      ],
    });
    expect(await directory().getUser('zhang')).toBeDefined();
  });

  it('with --replace makes the directory exactly the snapshot', async () => {
    await seedDirectory(store().db);
    const result = await importSnapshot(changes(), contractsExample(), { replace: true });
    expect(result.ok).toBe(true);
    expect(await countRows()).toEqual({ teams: 1, departments: 2, users: 2, user_departments: 1, files: 2, file_grants: 3, file_contents: 0 });
    expect(await directory().getUser('zhang')).toBeUndefined();
    expect(await directory().listDepartmentPaths('u1')).toHaveLength(1);
  });

  it('a replace of a large directory (bulk rows: COPY on PostgreSQL) reads back exactly, awkward text included', async () => {
    const awkward = ['back\\slash', 'tab\there', 'line\nbreak', 'carriage\rreturn', 'quote " and \\N', '张三 \\t'];
    const users = Array.from({ length: 1_500 }, (_, index) => ({
      id: `u${index}`,
      name: `${awkward[index % awkward.length]!.replace(/[\t\n\r]/g, ' ')} ${index}`,
      email: `u${index}@example.com`,
      teamId: 't1',
      departmentIds: ['d1'],
      watermark: [awkward[index % awkward.length]!, `${index}`],
    }));
    const files = Array.from({ length: 1_200 }, (_, index) => ({
      id: `f${index}`,
      name: `文件 \\ ${index}`,
      type: 'document',
      creatorId: `u${index}`,
      teamId: 't1',
      createdAt: '2024-03-01T08:00:00Z',
      updatedAt: '2024-03-02T08:00:00Z',
      sharing: [
        { principal: `user:u${index + 1}`, role: 'editor' },
        { principal: 'department:d1', role: 'viewer' },
      ],
    }));
    const snapshot = { teams: [{ id: 't1', name: 'Acme' }], departments: [{ id: 'd1', name: 'R&D', teamId: 't1', parentId: null }], users, files };
    await seedDirectory(store().db);
    expect((await importSnapshot(changes(), snapshot, { replace: true })).ok).toBe(true);
    expect(await countRows()).toEqual({ teams: 1, departments: 1, users: 1_500, user_departments: 1_500, files: 1_200, file_grants: 2_400, file_contents: 0 });
    const exported = await exportSnapshot(store().db);
    for (const index of [0, 1, 2, 3, 4, 5, 1_499]) expect(exported.users.find((user) => user.id === `u${index}`)).toMatchObject(users[index]!);
    expect(exported.files.find((file) => file.id === 'f7')).toMatchObject({ name: files[7]!.name, sharing: expect.arrayContaining(files[7]!.sharing) });
    expect((await importSnapshot(changes(), exported, { replace: true })).ok).toBe(true);
    expect(await exportSnapshot(store().db)).toEqual(exported);
  }, 60_000);

  it('stores a contentFile with a Content-Type from its extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-content-'));
    writeFileSync(join(dir, 'notes.txt'), '你好 hello');
    const snapshot = contractsExample();
    (snapshot.files as unknown[]).push({
      id: 'f3',
      name: 'notes',
      type: 'file',
      creatorId: 'u1',
      contentFile: 'notes.txt',
      createdAt: '2024-03-01T08:00:00Z',
      updatedAt: '2024-03-01T08:00:00Z',
    });
    expect(await importSnapshot(changes(), snapshot, { baseDir: dir })).toMatchObject({ ok: true, counts: { contents: 1 } });
    const row = await store().db.selectFrom('file_contents').selectAll().where('file_id', '=', 'f3').executeTakeFirstOrThrow();
    expect(row.content_type).toBe('text/plain; charset=utf-8');
    expect(Buffer.from(row.content).toString('utf8')).toBe('你好 hello');
    expect(await directory().getFile('f3')).toMatchObject({ hasStoredContent: true });
  });

  it('exports what import reads back as the same directory (fixture company, then demo data)', async () => {
    await seedDirectory(store().db);
    const first = await exportSnapshot(store().db);
    expect(first.users.find((user) => user.id === 'bob')).toEqual({
      id: 'bob',
      name: 'Bob Brown',
      email: 'bob@example.com',
      avatar: 'https://avatars.example.com/bob.png',
      teamId: 'acme',
      departmentIds: ['sales'],
      watermark: [],
    });
    expect(first.users.find((user) => user.id === 'outsider')).toEqual({
      id: 'outsider',
      name: 'Outsider',
      email: 'outsider@example.com',
      avatar: 'https://avatars.example.com/outsider.png',
    });
    expect(first.files.find((file) => file.id === 'teamdoc')).toMatchObject({
      sharing: [{ principal: 'team:acme', role: 'viewer' }],
      restrictions: { copy: false, export: false },
    });

    const other = await openTestStore(dialect);
    try {
      expect((await importSnapshot(directoryChanges(other), first)).ok).toBe(true);
      expect(await exportSnapshot(other.db)).toEqual(first);
      // and back over the original with --replace: nothing changes.
      expect((await importSnapshot(changes(), first, { replace: true })).ok).toBe(true);
      expect(await exportSnapshot(store().db)).toEqual(first);
    } finally {
      await other.close();
    }

    const demo = JSON.parse(readFileSync(DEMO_SNAPSHOT_PATH, 'utf8')) as unknown;
    expect((await importSnapshot(changes(), demo, { replace: true, baseDir: dirname(DEMO_SNAPSHOT_PATH) })).ok).toBe(true);
    const exported = await exportSnapshot(store().db);
    // Without the stored bytes (an export to stdout), a replace would lose them: refused, not lost.
    const welcome = exported.files.findIndex((file) => file.id === 'welcome-txt');
    expect(await importSnapshot(changes(), exported, { replace: true })).toMatchObject({
      ok: false,
      problems: [{ path: `$.files[${welcome}].downloadUrl`, message: expect.stringContaining('is required for a file of type "file"') }],
    });
    expect((await importSnapshot(changes(), exported)).ok).toBe(true);
    expect(await exportSnapshot(store().db)).toEqual(exported);
    expect(await directory().getFile('welcome-txt')).toMatchObject({ hasStoredContent: true });
  });
});
