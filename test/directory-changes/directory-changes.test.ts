import { beforeEach, describe, expect, it } from 'vitest';
import { directoryChanges, type DirectoryChange, type DirectoryDiff } from '../../src/directory-changes/directory-changes.js';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { clearDirectory } from '../../src/store/directory-writes/directory-writer.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const file = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `File ${id}`,
  type: 'document',
  creatorId: 'zhang',
  createdAt: '2024-04-01T08:00:00Z',
  updatedAt: '2024-04-02T08:00:00Z',
  ...extra,
});

const NO_CHANGE: DirectoryDiff = {
  created: { teams: [], departments: [], users: [], files: [] },
  updated: { teams: [], departments: [], users: [], files: [] },
  removed: { teams: [], departments: [], users: [], files: [] },
  deactivatedUsers: [],
  reactivatedUsers: [],
};

describeEachStore('directory changes: the one validated path', (store) => {
  const directory = () => new SqlDirectory(store().db);
  const changes = () => directoryChanges(store());
  const api = (change: DirectoryChange, options: Record<string, unknown> = {}) => changes().apply(change, { source: 'api', ...options });
  const exported = () => exportSnapshot(store().db);

  beforeEach(async () => {
    await clearDirectory(store().db);
    await seedDirectory(store().db);
  });

  /** Applies a change that must be refused, and checks that nothing changed. */
  const refused = async (change: DirectoryChange, options: Record<string, unknown> = {}) => {
    const before = await exported();
    const result = await api(change, options);
    expect(await exported()).toEqual(before);
    if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.diff)}`);
    return result;
  };

  describe('every rule of the snapshot holds against what is stored', () => {
    it('refuses a department moved to another team (409), naming what it carries', async () => {
      const result = await refused({ upsert: { departments: [{ id: 'fe', name: '前端组', teamId: 'other' }] } });
      expect(result).toMatchObject({ status: 409, code: 'cross_team_move' });
      expect(result.problems).toEqual([
        {
          path: '$.departments[0].teamId',
          message:
            'moves department "fe" from team "acme" to team "other": a department cannot change teams ' +
            '(it has 2 members, 1 sub-department, 1 grant in team "acme"); remove it and create a department in team "other"',
        },
      ]);
      expect((await directory().getDepartment('fe'))?.teamId).toBe('acme');
    });

    it('refuses a user whose departments are in another team, and a grant to a principal that does not exist', async () => {
      const user = await refused({ upsert: { users: [{ id: 'olga', name: 'Olga', teamId: 'other', departmentIds: ['fe'] }] } });
      expect(user).toMatchObject({ status: 400, code: 'invalid_record' });
      expect(user.problems).toEqual([{ path: '$.users[0].departmentIds[0]', message: 'names department "fe" of team "acme", not the user\'s team "other"' }]);
      const grant = await refused({ upsert: { files: [file('memo', { sharing: [{ principal: 'department:ghost', role: 'viewer' }] })] } });
      expect(grant.problems).toEqual([{ path: '$.files[0].sharing[0].principal', message: 'names unknown department "ghost"' }]);
    });

    it('refuses a file with neither bytes nor downloadUrl, and updatedAt before createdAt', async () => {
      const result = await refused({ upsert: { files: [file('bare', { type: 'file', updatedAt: '2024-03-31T08:00:00Z' })] } });
      expect(result.problems).toEqual([
        { path: '$.files[0].updatedAt', message: 'is earlier than createdAt (2024-04-01T08:00:00Z)' },
        { path: '$.files[0].downloadUrl', message: expect.stringContaining('is required for a file of type "file"') },
      ]);
    });

    it('refuses control characters in ids and NUL in text with the same 400 on every store', async () => {
      const result = await refused({
        upsert: {
          users: [
            { id: 'a\u0000b', name: 'x' },
            { id: 'ok', name: 'N\u0000UL' },
          ],
        },
        remove: { files: ['p\u0007lan'] },
      });
      expect(result).toMatchObject({ status: 400, code: 'invalid_record' });
      expect(result.problems).toEqual([{ path: '$.remove.files[0]', message: 'must be well-formed Unicode without control characters (U+0000 to U+001F, U+007F)' }]);
      const records = await refused({
        upsert: {
          users: [
            { id: 'a\u0000b', name: 'x' },
            { id: 'ok', name: 'N\u0000UL' },
          ],
        },
      });
      expect(records.problems).toEqual([
        { path: '$.users[0].id', message: 'must be well-formed Unicode without control characters (U+0000 to U+001F, U+007F)' },
        { path: '$.users[1].name', message: 'must be well-formed Unicode without NUL (U+0000)' },
      ]);
    });

    it('checks upserts against the store as it will be after the removals of the same change', async () => {
      const result = await refused({ upsert: { users: [{ id: 'newbie', name: 'New', teamId: 'acme', departmentIds: ['sales'] }] }, remove: { departments: ['sales'] } });
      expect(result.problems).toEqual([{ path: '$.users[0].departmentIds[0]', message: 'names unknown department "sales"' }]);
      const both = await refused({ upsert: { teams: [{ id: 'other', name: 'Other' }] }, remove: { teams: ['other'] } });
      expect(both.problems).toEqual([{ path: '$.remove.teams[0]', message: 'is also upserted by $.teams[0]' }]);
    });
  });

  describe('removals', () => {
    it('refuses unknown ids (404) and removals that would leave rows pointing at nothing (409)', async () => {
      expect(await refused({ remove: { users: ['ghost'] } })).toMatchObject({
        status: 404,
        code: 'not_found',
        message: 'no user ghost',
        problems: [{ path: '$.remove.users[0]', message: 'names unknown user "ghost"' }],
      });
      expect(await refused({ remove: { users: ['zhang'] } })).toMatchObject({ status: 409, code: 'in_use', message: expect.stringMatching(/^user zhang created 3 files/) });
      expect(await refused({ remove: { departments: ['fe'] } })).toMatchObject({ status: 409, message: 'department fe still has 1 sub-departments' });
    });

    it('removes a department with its sub-department in one change, children first, and their memberships and grants', async () => {
      const result = await api({ remove: { departments: ['fe', 'web'] } });
      expect(result).toEqual({ ok: true, dryRun: false, diff: { ...NO_CHANGE, removed: { ...NO_CHANGE.removed, departments: ['fe', 'web'] } } });
      expect(await directory().listDepartmentPaths('wang')).toEqual([]);
      expect(await directory().getGrantedRole('sheet', 'hanmeimei')).toBeNull();
    });
  });

  describe('the diff', () => {
    it('reports created, updated (content changed only) and removed records, and users deactivated or reactivated', async () => {
      const same = (await exported()).users.find((user) => user.id === 'bob');
      const result = await api({
        upsert: {
          users: [same, { id: 'newbie', name: 'New', teamId: 'acme' }, { id: 'carol', name: 'Carol White', email: 'carol@example.com', teamId: 'acme', active: false }],
          files: [file('plan', { name: 'Plan v2', views: 3 })],
        },
        remove: { users: ['outsider'] },
      });
      expect(result).toEqual({
        ok: true,
        dryRun: false,
        diff: {
          created: { ...NO_CHANGE.created, users: ['newbie'] },
          updated: { ...NO_CHANGE.updated, users: ['carol'], files: ['plan'] },
          removed: { ...NO_CHANGE.removed, users: ['outsider'] },
          deactivatedUsers: ['carol', 'outsider'],
          reactivatedUsers: [],
        },
      });
      const again = await api({ upsert: { users: [{ id: 'carol', name: 'Carol White', teamId: 'acme' }] } });
      expect(again.ok && again.diff.reactivatedUsers).toEqual(['carol']);
      const unchanged = await api({ upsert: { users: [{ id: 'carol', name: 'Carol White', teamId: 'acme' }] } });
      expect(unchanged).toEqual({ ok: true, dryRun: false, diff: NO_CHANGE });
    });

    it('exports "active": false only for deactivated users, and the export imports back to the same directory', async () => {
      expect((await api({ upsert: { users: [{ id: 'carol', name: 'Carol White', teamId: 'acme', active: false }] } })).ok).toBe(true);
      const snapshot = await exported();
      expect(snapshot.users.find((user) => user.id === 'carol')).toEqual({ id: 'carol', name: 'Carol White', teamId: 'acme', active: false });
      expect(snapshot.users.filter((user) => 'active' in user).map((user) => user.id)).toEqual(['carol']);
      expect((await directory().getUser('carol'))?.active).toBe(false);
      const replaced = await changes().apply({ upsert: snapshot as never }, { source: 'snapshot', replace: true });
      expect(replaced).toEqual({ ok: true, dryRun: false, diff: NO_CHANGE });
      expect(await exported()).toEqual(snapshot);
    });
  });

  describe('dry run and the empty-team guard', () => {
    it('answers what a change would do and writes nothing', async () => {
      const before = await exported();
      const result = await api({ upsert: { teams: [{ id: 'newco', name: 'New Co' }] }, remove: { users: ['outsider'] } }, { dryRun: true });
      expect(result).toEqual({
        ok: true,
        dryRun: true,
        diff: { ...NO_CHANGE, created: { ...NO_CHANGE.created, teams: ['newco'] }, removed: { ...NO_CHANGE.removed, users: ['outsider'] }, deactivatedUsers: ['outsider'] },
      });
      expect(await exported()).toEqual(before);
      // A dry run refuses what the change would be refused for, writes included.
      expect(await api({ remove: { departments: ['fe'] } }, { dryRun: true })).toMatchObject({ ok: false, status: 409, code: 'in_use' });
    });

    it('refuses a replace that removes every team, or a change that empties a team by leaving out or moving its users, unless allowed; never a leaver', async () => {
      const replaceAll = await refused({ upsert: {} }, { replace: true });
      expect(replaceAll).toMatchObject({ status: 409, code: 'directory_would_be_empty' });
      expect(replaceAll.problems).toEqual([{ path: '$', message: 'removes every team (there were 2)' }]);
      const olga = await refused({ upsert: { users: [{ id: 'olga', name: 'Olga Petrova', teamId: 'acme' }] } });
      expect(olga.problems).toEqual([{ path: '$', message: 'leaves team "other" with no active users (it had 1)' }]);
      expect(olga.message).toContain('allowEmpty');
      const leftOut = await refused(
        {
          upsert: {
            teams: [
              { id: 'acme', name: 'Acme' },
              { id: 'other', name: 'Other' },
            ],
          },
        },
        { replace: true },
      );
      expect(leftOut.problems).toEqual(expect.arrayContaining([{ path: '$', message: 'leaves team "other" with no active users (it had 1)' }]));
      // A leaver is never refused, the team's last active user too: deactivated, or removed by name.
      const all = await exported();
      const leaverInReplace = { ...all, users: all.users.map((user) => (user.id === 'olga' ? { ...user, active: false } : user)) };
      expect(await api({ upsert: leaverInReplace as never }, { replace: true })).toMatchObject({ ok: true, diff: { deactivatedUsers: ['olga'] } });
      expect(await api({ remove: { users: ['olga'] } })).toMatchObject({ ok: true, diff: { removed: { users: ['olga'] } } });
      const allowed = await api({ upsert: {} }, { replace: true, allowEmpty: true });
      expect(allowed.ok && allowed.diff.removed.teams).toEqual(['acme', 'other']);
      expect(await exported()).toEqual({ teams: [], departments: [], users: [], files: [] });
    });
  });

  describe('team ownership by source', () => {
    const owned = () => directoryChanges(store(), { owners: new Map([['other', 'ldap']]) });

    it('refuses a write to a team kept by another source (409), and takes it from that source', async () => {
      const before = await exported();
      const fromApi = await owned().apply({ upsert: { users: [{ id: 'olga', name: 'Olga P.', teamId: 'other', departmentIds: ['ops'] }] } }, { source: 'api' });
      expect(fromApi).toMatchObject({
        ok: false,
        status: 409,
        code: 'team_owned_by_source',
        problems: [{ path: '$.users[0]', message: 'writes user "olga" of team "other", which source "ldap" keeps: writes from "api" are refused' }],
      });
      const moveOut = await owned().apply({ upsert: { users: [{ id: 'olga', name: 'Olga Petrova', teamId: 'acme' }] } }, { source: 'snapshot' });
      expect(moveOut).toMatchObject({ ok: false, code: 'team_owned_by_source' });
      const removal = await owned().apply({ remove: { departments: ['ops'] } }, { source: 'api' });
      expect(removal).toMatchObject({ ok: false, problems: [{ path: '$.remove.departments[0]' }] });
      expect(await exported()).toEqual(before);

      expect((await owned().apply({ upsert: { users: [{ id: 'olga', name: 'Olga P.', teamId: 'other', departmentIds: ['ops'] }] } }, { source: 'ldap' })).ok).toBe(true);
      // An unchanged record of the owned team is no write to it, and other teams stay open to everyone.
      const unchanged = await owned().apply(
        {
          upsert: {
            users: [
              { id: 'olga', name: 'Olga P.', teamId: 'other', departmentIds: ['ops'] },
              { id: 'newbie', name: 'N', teamId: 'acme' },
            ],
          },
        },
        { source: 'api' },
      );
      expect(unchanged.ok).toBe(true);
    });
  });

  describe('listeners', () => {
    it('run inside the transaction, after the writes, with the diff and the options', async () => {
      const seen: Array<{ diff: DirectoryDiff; source: string; name: string | undefined }> = [];
      const withListener = directoryChanges(store(), {
        listeners: [
          async (trx, diff, options) => {
            const row = await trx.selectFrom('teams').select('name').where('id', '=', 'newco').executeTakeFirst();
            seen.push({ diff, source: options.source, name: row?.name });
          },
        ],
      });
      const result = await withListener.apply({ upsert: { teams: [{ id: 'newco', name: 'New Co' }] } }, { source: 'scim' });
      expect(result.ok).toBe(true);
      expect(seen).toEqual([{ diff: { ...NO_CHANGE, created: { ...NO_CHANGE.created, teams: ['newco'] } }, source: 'scim', name: 'New Co' }]);
      expect((await withListener.apply({ upsert: { teams: [{ id: 'dry', name: 'Dry' }] } }, { source: 'api', dryRun: true })).ok).toBe(true);
      expect(seen).toHaveLength(1);
    });

    it('roll the change back when one throws', async () => {
      const before = await exported();
      const failing = directoryChanges(store(), {
        listeners: [
          async () => {
            throw new Error('seat queue unavailable');
          },
        ],
      });
      await expect(failing.apply({ upsert: { teams: [{ id: 'newco', name: 'New Co' }] }, remove: { users: ['outsider'] } }, { source: 'api' })).rejects.toThrow(
        'seat queue unavailable',
      );
      expect(await exported()).toEqual(before);
    });
  });
});
