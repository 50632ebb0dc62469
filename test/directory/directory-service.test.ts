import { beforeAll, expect, it } from 'vitest';
import type { StoreDirectory } from '../../src/directory/directory.js';
import { DirectoryService } from '../../src/directory/directory-service.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { describeEachStore } from '../helpers/stores.js';
import { MANUAL_BYTES, seedWithExtras } from './fixture-extras.js';

const NOON = Date.parse('2024-05-06T23:30:00Z');

describeEachStore('DirectoryService', (store) => {
  let directory: SqlDirectory;
  let service: DirectoryService<StoreDirectory>;
  beforeAll(async () => {
    await seedWithExtras(store().db);
    directory = new SqlDirectory(store().db);
    service = new DirectoryService(directory, { watermarkTemplate: ['{name}', '{email}|{id}', '{date}'], now: () => NOON });
  });

  const user = async (id: string) => {
    const found = await directory.getUser(id);
    if (!found) throw new Error(`fixture user ${id} missing`);
    return found;
  };

  it('fileAsSeenBy: undefined for unknown, pending and failed files; permissions and teamGuid otherwise', async () => {
    expect(await service.fileAsSeenBy('nope', 'zhang')).toBeUndefined();
    expect(await service.fileAsSeenBy('draft', 'zhang')).toBeUndefined();
    expect(await service.fileAsSeenBy('broken', 'zhang')).toBeUndefined();
    const view = await service.fileAsSeenBy('loose', 'wang');
    expect(view?.permissions.readable).toBe(true);
    expect(view?.permissions.commentable).toBe(false);
    expect(view?.teamGuid).toBe('acme'); // from the creator
    expect((await service.fileAsSeenBy('orphan', 'olga'))?.teamGuid).toBeNull();
  });

  it('the batch role query agrees with asking one user at a time', async () => {
    const users = ['zhang', 'lilei', 'hanmeimei', 'wang', 'alice', 'bob', 'carol', 'olga', 'outsider', 'ghost'];
    for (const fileId of ['plan', 'sheet', 'teamdoc', 'mixed', 'orphan']) {
      const batch = await directory.getGrantedRoles(fileId, users);
      for (const id of users) expect(batch.get(id) ?? null, `${fileId}/${id}`).toBe(await directory.getGrantedRole(fileId, id));
    }
  });

  it('collaborators are the same with and without the optional batch method', async () => {
    // The same SqlDirectory, minus the optional method: the service falls back to one query per user.
    const withoutBatch: StoreDirectory = new Proxy(directory, {
      get: (target, name, receiver) => (name === 'getGrantedRoles' ? undefined : Reflect.get(target, name, receiver)),
    });
    const plain = new DirectoryService(withoutBatch, { watermarkTemplate: [] });
    for (const fileId of ['plan', 'sheet', 'mixed']) {
      const file = await directory.getFile(fileId);
      if (!file) throw new Error('fixture file missing');
      expect(await plain.collaborators(file)).toEqual(await service.collaborators(file));
    }
  });

  it('watermarks: own lines, [] hides, template with name, email, id and the UTC date', async () => {
    expect(service.watermarkFor(await user('hanmeimei'))).toEqual(['韩梅梅', '机密']);
    expect(service.watermarkFor(await user('bob'))).toEqual([]);
    expect(service.watermarkFor(await user('zhang'))).toEqual(['张三', 'zhang@example.com|zhang', '2024-05-06']);
    expect(service.watermarkFor({ ...(await user('zhang')), email: null })[1]).toBe('|zhang');
  });

  it('usersInOrder keeps the order asked, drops unknown ids and repeats', async () => {
    expect((await service.usersInOrder(['olga', 'x', 'zhang', 'olga'])).map((u) => u.id)).toEqual(['olga', 'zhang']);
    expect(await service.usersInOrder([])).toEqual([]);
  });

  it('organisation visibility: own team only; TEAM_ roots resolve to the team', async () => {
    const zhang = await user('zhang');
    const olga = await user('olga');
    const outsider = await user('outsider');
    expect(await service.department(zhang, 'TEAM_acme')).toEqual({ id: 'TEAM_acme', name: 'Acme 公司', allMemberCount: 7 });
    expect(await service.department(olga, 'TEAM_acme')).toBeUndefined();
    expect(await service.department(olga, 'rd')).toBeUndefined();
    expect(await service.departmentChildren(outsider, 'TEAM_acme')).toBeUndefined();
    expect(await service.teamMembers(olga, 'acme', { offset: 0, limit: 10 })).toBeUndefined();
    expect(await service.departmentPaths(olga, 'zhang')).toBeUndefined();
    expect(await service.departmentPaths(outsider, 'outsider')).toEqual([]);
    expect(await service.teamOf(outsider)).toBeUndefined();
  });

  it('stored content comes back byte for byte', async () => {
    const content = await directory.getFileContent('manual');
    expect(content?.contentType).toBe('application/pdf');
    expect(content?.content.equals(MANUAL_BYTES)).toBe(true);
    expect(await directory.getFileContent('contract')).toBeUndefined();
  });
});
