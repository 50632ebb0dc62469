import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { tokenFor } from '../helpers/app.js';
import { withKitKeys } from '../helpers/permissions.js';
import { admin, ADMIN_KEY, buildEventApp, commentCreate, mentionAt, postEvent, revision } from '../events/event-fixtures.js';

const NONE = { readable: false, commentable: false, editable: false, copyable: false, exportable: false, manageable: false };

/** Every user-context callback: what a guest may and may not reach (docs/sharing.md). */
describeEachStore('what a guest sees through the callbacks', (store) => {
  let app: FastifyInstance;
  let settle: () => Promise<void>;
  const guests: Record<string, { token: string; id: string }> = {};
  const directoryToken = tokenFor('zhang');
  beforeAll(async () => {
    await seedDirectory(store().db);
    ({ app, settle } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY, notifyWebhookUrls: ['http://receiver.test/hook'] }));
    for (const role of ['view', 'comment', 'edit', 'form_fill']) {
      const link = (await app.inject({ method: 'POST', url: '/api/files/plan/share-links', headers: admin, payload: { role } })).json();
      const issued = (await app.inject({ method: 'POST', url: `/share-links/${link.code}/token`, payload: { name: `Guest ${role}` } })).json();
      guests[role] = { token: issued.token, id: issued.user.id };
    }
  });
  afterAll(async () => {
    await app.close();
  });

  const as = (role: string) => ({ 'x-platform-token': guests[role]!.token });
  const get = async (url: string, role = 'edit') => {
    const response = await app.inject({ method: 'GET', url, headers: as(role) });
    return { status: response.statusCode, body: response.json() };
  };

  it('GET /users/current/info answers the guest with an empty teamGuid', async () => {
    const { status, body } = await get('/users/current/info');
    expect(status).toBe(200);
    expect(body).toEqual({ id: guests.edit!.id, name: 'Guest edit', avatar: '', email: '', teamGuid: '' });
    expect(body.id).toMatch(/^guest-/);
  });

  it("GET /files/{fileId} answers the link's file capped by the role, never manageable", async () => {
    const permissionsOf = async (role: string) => (await get('/files/plan', role)).body.permissions;
    expect(await permissionsOf('view')).toEqual(withKitKeys({ ...NONE, readable: true }));
    expect(await permissionsOf('form_fill')).toEqual(withKitKeys({ ...NONE, readable: true }, { formFillable: true }));
    expect(await permissionsOf('comment')).toEqual(withKitKeys({ ...NONE, readable: true, commentable: true, copyable: true, exportable: true }));
    expect(await permissionsOf('edit')).toEqual(withKitKeys({ readable: true, commentable: true, editable: true, copyable: true, exportable: true, manageable: false }));
    const { body } = await get('/files/plan');
    expect(body).toMatchObject({ id: 'plan', name: '季度计划', type: 'documentPro' });
    expect(body.teamGuid).toBeUndefined();
  });

  it('every other file is 404, and GET /files lists only the link file', async () => {
    for (const fileId of ['sheet', 'secret', 'contract', 'nothing']) {
      const { status, body } = await get(`/files/${fileId}`);
      expect([status, body.error.code]).toEqual([404, 'file_not_found']);
    }
    const { status, body } = await get('/files');
    expect(status).toBe(200);
    expect(body.map((file: { id: string }) => file.id)).toEqual(['plan']);
  });

  it('sees no directory member, team or department through any route', async () => {
    const refused = [
      '/users/current/team',
      '/users/zhang/department-paths',
      '/files/plan/collaborators',
      '/teams/acme/members',
      '/departments/rd',
      '/departments/rd/children',
      '/departments/rd/members',
      '/departments/TEAM_acme/children',
    ];
    for (const url of refused) {
      const { status, body } = await get(url);
      expect([status, body.error.code], url).toEqual([403, 'guest_not_allowed']);
      expect(JSON.stringify(body), url).not.toMatch(/张三|李雷|Alice|研发部|Acme/);
      // A directory user reaches the same route (the refusal is the guest's, not the route's absence).
      expect((await app.inject({ method: 'GET', url, headers: { 'x-platform-token': directoryToken } })).statusCode, url).toBe(200);
    }
    expect((await get('/users/zhang')).status).toBe(404);
    expect((await get('/users/zhang/watermark')).status).toBe(404);
    const own = await get(`/users/${guests.edit!.id}`);
    expect(own.body).toMatchObject({ id: guests.edit!.id, name: 'Guest edit' });
    const batch = await app.inject({ method: 'POST', url: '/users/batch/get', headers: as('edit'), payload: { ids: ['zhang', guests.edit!.id, 'lilei'] } });
    expect(batch.json().map((user: { id: string }) => user.id)).toEqual([guests.edit!.id]);

    const search = await app.inject({
      method: 'POST',
      url: '/search',
      headers: as('edit'),
      payload: { type: 'file,recent_user,collaborator,team_member,department', keyword: '' },
    });
    expect(search.statusCode).toBe(200);
    for (const page of Object.values(search.json() as Record<string, { count: number; results: unknown[] }>)) expect([page.count, page.results]).toEqual([0, []]);
    const named = await app.inject({ method: 'POST', url: '/search', headers: as('edit'), payload: { type: 'team_member,collaborator', keyword: '张' } });
    expect(JSON.stringify(named.json())).not.toContain('张三');
    expect((await get('/search/users/recent?fileId=plan')).body).toEqual([]);
    expect((await get('/search/files/recent?fileId=plan')).body).toEqual([]);
  });

  it("the watermark names the guest and the link's owner", async () => {
    const { status, body } = await get(`/users/${guests.view!.id}/watermark`, 'view');
    expect(status).toBe(200);
    expect(body.watermarks.join(' ')).toContain('Guest view');
    expect(body.watermarks.join(' ')).toContain('张三');
  });

  it("accepts a guest's events only for the link's file and within the role; mentions notify directory users", async () => {
    const send = (kind: string, body: unknown, role: string) => postEvent(app, kind, body, as(role));
    const commenter = guests.comment!.id;
    const comment = await send('Comment', commentCreate('plan', commenter, { guid: 'g1', content: 'hello @李雷', userIds: ['lilei'], selectionGuid: 's1' }), 'comment');
    expect(comment.statusCode).toBe(200);
    const mention = await send(
      'MentionAt',
      mentionAt('plan', commenter, 'comment', { comment: { guid: 'g1', selectionGuid: 's1', content: 'hello', userIds: ['lilei'] } }),
      'comment',
    );
    expect(mention.statusCode).toBe(200);
    await settle();
    const notifications = (await app.inject({ method: 'GET', url: '/api/notifications?limit=500', headers: admin })).json().items as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;
    expect(notifications.filter((n) => n.type === 'mention.created').map((n) => [n.data.userId, n.data.byUserId])).toContainEqual(['lilei', commenter]);

    const otherFile = await send('Comment', commentCreate('sheet', commenter, { guid: 'g2', content: 'x', selectionGuid: 's2' }), 'comment');
    expect([otherFile.statusCode, (otherFile.json() as { error: { code: string } }).error.code]).toEqual([403, 'permission_denied']);
    const viewerComment = await send('Comment', commentCreate('plan', guests.view!.id, { guid: 'g3', content: 'x', selectionGuid: 's3' }), 'view');
    expect(viewerComment.statusCode).toBe(403);
    const beyondRole = await send('Revision', revision('plan', commenter, 'create', 99), 'comment');
    expect(beyondRole.statusCode).toBe(403);
    expect((await send('Revision', revision('plan', guests.edit!.id, 'create', 98), 'edit')).statusCode).toBe(200);
    const asSomeoneElse = await send('Comment', commentCreate('plan', 'zhang', { guid: 'g4', content: 'x', selectionGuid: 's4' }), 'comment');
    expect(asSomeoneElse.statusCode).toBe(403);
  });
});
