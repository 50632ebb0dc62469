import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateSnapshot } from '../../src/directory-changes/validate.js';
import type { SnapshotProblem } from '../../src/directory-changes/problems.js';
import { EMPTY_DIRECTORY } from '../../src/directory-changes/existing-directory.js';

/** A small valid snapshot to break one rule at a time. */
function base() {
  return {
    teams: [
      { id: 't1', name: 'Acme' },
      { id: 't2', name: 'Other' },
    ],
    departments: [
      { id: 'd1', name: '研发部', teamId: 't1', parentId: null },
      { id: 'd2', name: '前端组', teamId: 't1', parentId: 'd1' },
      { id: 'x1', name: 'Ops', teamId: 't2' },
    ],
    users: [
      { id: 'u1', name: '张三', teamId: 't1', departmentIds: ['d2'] },
      { id: 'u2', name: 'Bob', teamId: 't1' },
    ],
    files: [
      {
        id: 'f1',
        name: '季度计划',
        type: 'documentPro',
        creatorId: 'u1',
        createdAt: '2024-03-01T08:00:00Z',
        updatedAt: '2024-03-02T08:00:00Z',
        sharing: [{ principal: 'user:u2', role: 'editor' }],
      },
    ],
  };
}

async function problemsOf(snapshot: unknown, options = {}): Promise<SnapshotProblem[]> {
  const result = await validateSnapshot(snapshot, options);
  return result.ok ? [] : result.problems;
}

describe('validateSnapshot', () => {
  it('accepts a valid snapshot and fills the defaults', async () => {
    const result = await validateSnapshot(base());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [file] = result.snapshot.files;
    expect(file?.file).toMatchObject({ teamId: 't1', views: null, restrictions: { copy: true, export: true }, status: 'active' });
    expect(file?.grants).toEqual([{ fileId: 'f1', principalKind: 'user', principalId: 'u2', role: 'editor' }]);
    expect(result.snapshot.users[1]).toMatchObject({ email: null, avatar: null, watermark: null, departmentIds: [] });
  });

  it('accepts a one-record snapshot (what the management API validates)', async () => {
    expect((await validateSnapshot({ teams: [{ id: 't9', name: 'Nine' }] })).ok).toBe(true);
  });

  it('refuses what is not a snapshot object', async () => {
    expect(await problemsOf([])).toEqual([{ path: '$', message: expect.stringContaining('JSON object') }]);
    expect(await problemsOf({ users: {} })).toEqual([{ path: '$.users', message: expect.stringContaining('array') }]);
  });

  it('lists every broken rule of a snapshot at once, each with its JSON path', async () => {
    const snapshot = {
      teams: [
        { id: 't1', name: '' },
        { id: 't1', name: 'Again' },
      ],
      departments: [
        { id: 'a', name: 'A', teamId: 't1', parentId: 'b' },
        { id: 'b', name: 'B', teamId: 't1', parentId: 'a' },
        { id: 'c', name: 'C', teamId: 'nope' },
        { id: 'TEAM_t1', name: 'Root?', teamId: 't1' },
      ],
      users: [{ id: 'u', name: 'U', teamId: 't2', departmentIds: ['zz'], nickname: 'x' }],
      files: [
        {
          id: 'g',
          name: 'G',
          type: 'documentPro',
          creatorId: 'nobody',
          createdAt: '2024-03-01T08:00:00.000Z',
          updatedAt: '2024-02-30T08:00:00Z',
          views: -1,
          sharing: [
            { principal: 'user:u', role: 'boss' },
            { principal: 'group:x', role: 'viewer' },
            { principal: 'team:t9', role: 'viewer' },
          ],
        },
      ],
    };
    expect(await problemsOf(snapshot)).toEqual([
      { path: '$.teams[0].name', message: 'must not be empty' },
      { path: '$.teams[1].id', message: 'duplicates the id of $.teams[0]' },
      { path: '$.departments[0].parentId', message: 'makes a cycle: a -> b -> a' },
      { path: '$.departments[1].parentId', message: 'makes a cycle: b -> a -> b' },
      { path: '$.departments[2].teamId', message: 'names unknown team "nope"' },
      { path: '$.departments[3].id', message: expect.stringContaining('must not start with TEAM_') },
      { path: '$.users[0].nickname', message: 'is not a known field' },
      { path: '$.users[0].teamId', message: 'names unknown team "t2"' },
      { path: '$.users[0].departmentIds[0]', message: 'names unknown department "zz"' },
      { path: '$.files[0].sharing[0].role', message: 'must be one of viewer, commenter, editor, manager' },
      { path: '$.files[0].creatorId', message: 'names unknown user "nobody"' },
      { path: '$.files[0].createdAt', message: expect.stringContaining('YYYY-MM-DDThh:mm:ssZ') },
      { path: '$.files[0].updatedAt', message: expect.stringContaining('YYYY-MM-DDThh:mm:ssZ') },
      { path: '$.files[0].views', message: 'must not be negative' },
      { path: '$.files[0].sharing[1].principal', message: 'must be user:ID, department:ID or team:ID' },
      { path: '$.files[0].sharing[2].principal', message: 'names unknown team "t9"' },
    ]);
  });

  it('refuses missing required fields and wrong types by path', async () => {
    const snapshot = base();
    (snapshot.users[0] as Record<string, unknown>).name = 42;
    delete (snapshot.files[0] as Record<string, unknown>).createdAt;
    (snapshot.files[0] as Record<string, unknown>).type = 'slides';
    (snapshot.departments[1] as Record<string, unknown>).parentId = 7;
    expect(await problemsOf(snapshot)).toEqual([
      { path: '$.departments[1].parentId', message: 'must be string or null' },
      { path: '$.users[0].name', message: 'must be string' },
      { path: '$.files[0].createdAt', message: 'is required' },
      { path: '$.files[0].type', message: 'must be one of documentPro, document, spreadsheet, table, presentation, form, flowchart, mindmap, board, file' },
    ]);
  });

  it('refuses a parent of another team and a department that is its own parent', async () => {
    const snapshot = base();
    snapshot.departments[1]!.parentId = 'x1';
    snapshot.departments.push({ id: 'self', name: 'Self', teamId: 't1', parentId: 'self' });
    expect(await problemsOf(snapshot)).toEqual([
      { path: '$.departments[1].parentId', message: 'names department "x1" of team "t2", not of this department\'s team "t1"' },
      { path: '$.departments[3].parentId', message: 'is the department itself' },
    ]);
  });

  it("refuses a user's department of another team, or any department for a user without team", async () => {
    const snapshot = base();
    snapshot.users[0]!.departmentIds = ['d2', 'x1'];
    snapshot.users.push({ id: 'u3', name: 'No team', departmentIds: ['d1'] } as never);
    expect(await problemsOf(snapshot)).toEqual([
      { path: '$.users[0].departmentIds[1]', message: 'names department "x1" of team "t2", not the user\'s team "t1"' },
      { path: '$.users[2].departmentIds[0]', message: 'names a department of team "t1" but the user has no teamId' },
    ]);
  });

  it('refuses times that are not exactly YYYY-MM-DDThh:mm:ssZ', async () => {
    for (const time of ['2024-03-01T08:00:00+08:00', '2024-03-01 08:00:00Z', '2024-13-01T08:00:00Z', '2024-03-01T08:00Z', '1709280000']) {
      const snapshot = base();
      snapshot.files[0]!.updatedAt = time;
      expect(await problemsOf(snapshot), time).toEqual([{ path: '$.files[0].updatedAt', message: expect.stringContaining('YYYY-MM-DDThh:mm:ssZ') }]);
    }
  });

  it('refuses duplicate ids within a section, but not the same id in two sections', async () => {
    const snapshot = base();
    snapshot.users.push({ id: 'u1', name: 'Twin', teamId: 't1' } as never);
    snapshot.files.push({ ...snapshot.files[0]!, id: 'u1' });
    expect(await problemsOf(snapshot)).toEqual([{ path: '$.users[2].id', message: 'duplicates the id of $.users[0]' }]);
  });

  it('refuses a principal named twice on one file, an ext with a dot, and non-http addresses', async () => {
    const snapshot = base();
    snapshot.files[0]!.sharing.push({ principal: 'user:u2', role: 'viewer' });
    snapshot.files.push({
      id: 'f2',
      name: 'a.docx',
      type: 'file',
      ext: '.docx',
      creatorId: 'u1',
      downloadUrl: 'ftp://files.example.com/a',
      createdAt: '2024-03-01T08:00:00Z',
      updatedAt: '2024-03-01T08:00:00Z',
    } as never);
    expect(await problemsOf(snapshot)).toEqual([
      { path: '$.files[0].sharing[1].principal', message: 'repeats the principal of sharing[0]' },
      { path: '$.files[1].ext', message: 'must not start with a dot ("docx", not ".docx")' },
      { path: '$.files[1].downloadUrl', message: 'must be an http(s):// address' },
    ]);
  });

  it('resolves contentFile against the snapshot directory and refuses a missing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-snapshot-'));
    writeFileSync(join(dir, 'present.txt'), 'hello');
    const withContent = (contentFile: string, type = 'file') => {
      const snapshot = base();
      snapshot.files.push({ ...snapshot.files[0]!, id: 'f2', type, sharing: [], contentFile } as never);
      return snapshot;
    };
    const ok = await validateSnapshot(withContent('present.txt'), { baseDir: dir });
    expect(ok.ok && ok.snapshot.files[1]?.contentPath).toBe(join(dir, 'present.txt'));
    expect(await problemsOf(withContent('absent.txt'), { baseDir: dir })).toEqual([
      { path: '$.files[1].contentFile', message: expect.stringContaining('"absent.txt", which is not a file') },
    ]);
    expect(await problemsOf(withContent('present.txt', 'document'), { baseDir: dir })).toEqual([{ path: '$.files[1].contentFile', message: 'is only for files of type "file"' }]);
    expect(await problemsOf(withContent('present.txt'))).toEqual([{ path: '$.files[1].contentFile', message: expect.stringContaining('only accepted in a snapshot file') }]);
  });

  it('refuses control characters in ids and references, and NUL in any text', async () => {
    const snapshot = base();
    snapshot.teams[1]!.id = 't\u00002';
    snapshot.departments[0]!.id = 'd\n1';
    snapshot.users[1]!.name = 'Bo\u0000b';
    (snapshot.users[1] as Record<string, unknown>).departmentIds = ['d\u007f'];
    snapshot.files[0]!.sharing[0]!.principal = 'user:u\u00012';
    const controls = 'must be well-formed Unicode without control characters (U+0000 to U+001F, U+007F)';
    // A record whose id is refused is left out of the rules between records: what pointed to it is unknown.
    expect(await problemsOf(snapshot)).toEqual([
      { path: '$.teams[1].id', message: controls },
      { path: '$.departments[0].id', message: controls },
      { path: '$.departments[1].parentId', message: 'names unknown department "d1"' },
      { path: '$.departments[2].teamId', message: 'names unknown team "t2"' },
      { path: '$.users[1].name', message: 'must be well-formed Unicode without NUL (U+0000)' },
      { path: '$.users[1].departmentIds[0]', message: controls },
      { path: '$.files[0].sharing[0].principal', message: controls },
    ]);
  });

  it('refuses an updatedAt earlier than createdAt', async () => {
    const snapshot = base();
    snapshot.files[0]!.updatedAt = '2024-02-29T23:59:59Z';
    expect(await problemsOf(snapshot)).toEqual([{ path: '$.files[0].updatedAt', message: 'is earlier than createdAt (2024-03-01T08:00:00Z)' }]);
    snapshot.files[0]!.updatedAt = snapshot.files[0]!.createdAt;
    expect(await problemsOf(snapshot)).toEqual([]);
  });

  it('refuses a file of type "file" with neither a downloadUrl nor bytes, unless the store holds its bytes', async () => {
    const snapshot = base();
    snapshot.files.push({ ...snapshot.files[0]!, id: 'f2', type: 'file', sharing: [] });
    expect(await problemsOf(snapshot)).toEqual([{ path: '$.files[1].downloadUrl', message: expect.stringContaining('is required for a file of type "file"') }]);
    const storedBytes = { ...EMPTY_DIRECTORY, filesWithStoredContent: async (ids: readonly string[]) => new Set(ids.filter((id) => id === 'f2')) };
    expect(await problemsOf(snapshot, { existing: storedBytes })).toEqual([]);
  });

  it("takes a user's active flag, true when absent, and refuses anything but a boolean", async () => {
    const snapshot = base();
    (snapshot.users[1] as Record<string, unknown>).active = false;
    const result = await validateSnapshot(snapshot);
    expect(result.ok && result.snapshot.users.map((user) => user.active)).toEqual([true, false]);
    (snapshot.users[1] as Record<string, unknown>).active = 'False';
    expect(await problemsOf(snapshot)).toEqual([{ path: '$.users[1].active', message: 'must be boolean' }]);
  });
});
