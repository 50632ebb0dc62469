import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isInterfaceTime } from '../../src/directory/time.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { seedWithExtras } from '../directory/fixture-extras.js';
import { withKitKeys } from '../helpers/permissions.js';

const CORE_NONE = { readable: false, commentable: false, editable: false, copyable: false, exportable: false, manageable: false };
const ALL = withKitKeys({ readable: true, commentable: true, editable: true, copyable: true, exportable: true, manageable: true });
const NONE = withKitKeys(CORE_NONE);
const VIEWER = withKitKeys({ ...CORE_NONE, readable: true, copyable: true, exportable: true });
const COMMENTER = withKitKeys({ ...CORE_NONE, readable: true, copyable: true, exportable: true, commentable: true });
const EDITOR = withKitKeys({ ...CORE_NONE, readable: true, copyable: true, exportable: true, commentable: true, editable: true });

describeEachStore('file callbacks', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedWithExtras(store().db);
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  const get = async (url: string, userId: string) => {
    const response = await app.inject({ method: 'GET', url, headers: asUser(userId) });
    return { status: response.statusCode, body: response.json() };
  };
  const permissionsOf = async (fileId: string, userId: string) => {
    const { status, body } = await get(`/files/${fileId}`, userId);
    expect(status).toBe(200);
    return body.permissions;
  };

  it('GET /files/{fileId} gives the collaborative shape with the viewer permissions, teamGuid and views', async () => {
    const { status, body } = await get('/files/plan', 'zhang');
    expect(status).toBe(200);
    expect(body).toEqual({
      id: 'plan',
      name: '季度计划',
      type: 'documentPro',
      creatorId: 'zhang',
      createdAt: '2024-03-01T08:00:00Z',
      updatedAt: '2024-03-05T08:00:00Z',
      views: 3,
      permissions: ALL,
      teamGuid: 'acme',
    });
    expect((await get('/files/sheet', 'alice')).body.views).toBe(1); // no views stored: the default
  });

  it('resolves every role, department inheritance, team grants and the creator', async () => {
    expect(await permissionsOf('plan', 'lilei')).toEqual(EDITOR); // direct editor beats department viewer
    expect(await permissionsOf('plan', 'wang')).toEqual(VIEWER); // web -> fe -> rd viewer
    expect(await permissionsOf('plan', 'hanmeimei')).toEqual(VIEWER); // fe -> rd viewer
    expect(await permissionsOf('sheet', 'hanmeimei')).toEqual(COMMENTER); // fe commenter
    expect(await permissionsOf('sheet', 'wang')).toEqual(COMMENTER); // web inherits fe
    expect(await permissionsOf('sheet', 'bob')).toEqual(ALL); // direct manager
    expect(await permissionsOf('sheet', 'alice')).toEqual(ALL); // creator
    expect(await permissionsOf('mixed', 'hanmeimei')).toEqual(ALL); // direct viewer, fe manager: strongest wins
    expect(await permissionsOf('orphan', 'olga')).toEqual(COMMENTER); // across teams, direct grant
  });

  it('applies restrictions: copy only with edit, export only for managers', async () => {
    expect(await permissionsOf('teamdoc', 'alice')).toEqual(withKitKeys({ ...CORE_NONE, readable: true })); // team viewer: copy and export restricted
    expect(await permissionsOf('teamdoc', 'carol')).toEqual(ALL); // creator keeps everything
    expect(await permissionsOf('locked', 'wang')).toEqual(withKitKeys({ ...CORE_NONE, readable: true, commentable: true, editable: true, copyable: true }));
    expect(await permissionsOf('locked', 'alice')).toEqual(ALL);
  });

  it('a user without access gets readable:false and nothing else of the file', async () => {
    for (const [fileId, userId] of [
      ['plan', 'alice'],
      ['teamdoc', 'olga'],
      ['secret', 'outsider'],
      ['secret', 'lilei'],
    ] as const) {
      const { status, body } = await get(`/files/${fileId}`, userId);
      expect(status).toBe(200);
      expect(body.permissions).toEqual(NONE);
      expect(body.name).toBe('');
      expect(body.creatorId).toBe('');
      expect(body.createdAt).toBe('1970-01-01T00:00:00Z');
      expect(body).not.toHaveProperty('teamGuid');
    }
  });

  it('a third-party file gives the preview shape with an external downloadUrl and ext without dot', async () => {
    const { status, body } = await get('/files/contract', 'alice');
    expect(status).toBe(200);
    expect(body).toEqual({
      id: 'contract',
      name: '合同.docx',
      type: 'file',
      permissions: VIEWER,
      downloadUrl: 'https://files.example.com/contract',
      ext: 'docx',
    });
    expect((await get('/files/bare', 'alice')).body).toMatchObject({ downloadUrl: '', ext: 'txt' });
    const hidden = await get('/files/contract', 'olga');
    expect(hidden.body).toEqual({ id: 'contract', name: '', type: 'file', permissions: NONE, downloadUrl: '' });
  });

  it('a stored third-party file links to its bytes under PUBLIC_URL', async () => {
    const { body } = await get('/files/manual', 'wang');
    expect(body.permissions).toEqual(VIEWER);
    expect(body.downloadUrl).toMatch(/^http:\/\/collab\.test\/content\/manual\?expires=\d+&sig=[A-Za-z0-9_-]+$/);
    const download = await app.inject({ method: 'GET', url: body.downloadUrl.replace('http://collab.test', '') });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
  });

  it('teamGuid of a file equals the viewer teamGuid when both are in the team, also via the creator', async () => {
    const me = await get('/users/current/info', 'wang');
    expect(me.body.teamGuid).toBe('acme');
    expect((await get('/files/plan', 'wang')).body.teamGuid).toBe(me.body.teamGuid);
    // `loose` has no team of its own: its creator's team stands in.
    expect((await get('/files/loose', 'wang')).body.teamGuid).toBe(me.body.teamGuid);
    // A file whose creator has no team has no teamGuid at all.
    expect((await get('/files/orphan', 'olga')).body).not.toHaveProperty('teamGuid');
  });

  it('unknown, pending and failed files are 404', async () => {
    for (const fileId of ['nope', 'draft', 'broken']) {
      const { status, body } = await get(`/files/${fileId}`, 'zhang');
      expect(status).toBe(404);
      expect(body.error.code).toBe('file_not_found');
    }
  });

  it('GET /files lists only readable active files, newest first, with interface times', async () => {
    const { status, body } = await get('/files', 'alice');
    expect(status).toBe(200);
    expect(body.map((file: { id: string }) => file.id)).toEqual(['manual', 'sheet', 'teamdoc', 'locked', 'contract', 'mixed', 'bare']);
    for (const file of body) {
      expect(isInterfaceTime(file.createdAt) && isInterfaceTime(file.updatedAt)).toBe(true);
      expect(file.permissions.readable).toBe(true);
      expect(file).not.toHaveProperty('teamGuid');
      expect(file).not.toHaveProperty('fullUrl');
    }
    const teamdoc = body.find((file: { id: string }) => file.id === 'teamdoc');
    expect(teamdoc.permissions).toEqual(withKitKeys({ ...CORE_NONE, readable: true }));
    const zhang = await get('/files', 'zhang');
    expect(zhang.body.map((file: { id: string }) => file.id)).not.toContain('draft');
    expect((await get('/files', 'outsider')).body.map((file: { id: string }) => file.id)).toEqual(['orphan']);
  });

  it('GET /files honours limit and orderBy', async () => {
    const limited = await get('/files?limit=2', 'alice');
    expect(limited.body.map((file: { id: string }) => file.id)).toEqual(['manual', 'sheet']);
    const byCreation = await get('/files?orderBy=created_at&limit=3', 'alice');
    // The shared fixture's files were created after the extras; equal times break by id, descending.
    expect(byCreation.body.map((file: { id: string }) => file.id)).toEqual(['teamdoc', 'sheet', 'locked']);
    expect((await get('/files?limit=100000', 'alice')).status).toBe(200); // served as the cap
  });

  it('GET /files refuses bad paging with a 400 JSON error', async () => {
    for (const query of ['limit=0', 'limit=-3', 'limit=abc', 'limit=1.5', 'orderBy=name']) {
      const { status, body } = await get(`/files?${query}`, 'alice');
      expect(status, query).toBe(400);
      expect(body.error.code).toBe('invalid_request');
    }
  });

  it('collaborators: the creator first, then direct grantees; isManager equals manageable', async () => {
    const { status, body } = await get('/files/mixed/collaborators', 'carol');
    expect(status).toBe(200);
    expect(body[0]).toEqual({ id: 'alice', name: 'Alice Smith', avatar: 'https://avatars.example.com/alice.png', email: 'alice@example.com', isManager: true });
    const managers = Object.fromEntries(body.map((user: { id: string; isManager: boolean }) => [user.id, user.isManager]));
    expect(managers).toEqual({ alice: true, carol: false, hanmeimei: true, olga: false });
    for (const user of body) {
      expect((await permissionsOf('mixed', user.id)).manageable).toBe(user.isManager);
    }
    const plan = await get('/files/plan/collaborators', 'wang');
    expect(plan.body.map((user: { id: string; isManager: boolean }) => [user.id, user.isManager])).toEqual([
      ['zhang', true],
      ['lilei', false],
    ]);
  });

  it('collaborators of an unreadable file are 403, of an unknown one 404', async () => {
    expect((await get('/files/secret/collaborators', 'alice')).body.error.code).toBe('file_not_readable');
    expect((await get('/files/secret/collaborators', 'alice')).status).toBe(403);
    expect((await get('/files/nope/collaborators', 'alice')).status).toBe(404);
    expect((await get('/files/draft/collaborators', 'zhang')).status).toBe(404);
  });
});
