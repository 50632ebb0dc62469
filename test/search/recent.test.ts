import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { asUser, buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { ids, search } from './search-http.js';
import { addActivity, seedSearchCompany } from './search-fixture.js';

async function getList(app: FastifyInstance, userId: string, url: string): Promise<Array<{ id: string }>> {
  const response = await app.inject({ method: 'GET', url, headers: asUser(userId) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

describeEachStore('recent lists, before any activity', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedSearchCompany(store().db);
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  it('offers the file’s collaborators, then the viewer’s department colleagues', async () => {
    const users = await getList(app, 'hanmeimei', '/search/users/recent?fileId=plan');
    // zhang created plan, lilei is granted it (and shares fe); the viewer is left out.
    expect(users.map((u) => u.id)).toEqual(['zhang', 'lilei']);
    expect(users[0]).toEqual({ id: 'zhang', name: '张三', avatar: 'https://avatars.example.com/zhang.png', email: 'zhang@example.com' });
  });

  it('falls back to same-department users without a readable file', async () => {
    expect((await getList(app, 'hanmeimei', '/search/users/recent?fileId=secret')).map((u) => u.id)).toEqual(['lilei']);
    expect((await getList(app, 'bob', '/search/users/recent?fileId=no-such-file')).map((u) => u.id)).toEqual(['alice']);
    expect(await getList(app, 'outsider', '/search/users/recent?fileId=plan')).toEqual([]);
  });

  it('lists the most recently updated readable files, the current one left out', async () => {
    const files = await getList(app, 'hanmeimei', '/search/files/recent?fileId=report7');
    expect(files.map((f) => f.id)).toEqual(['report6', 'report5', 'report4', 'report3', 'report2', 'report1', 'plan', 'sheet', 'teamdoc']);
    expect(files[0]).toMatchObject({ id: 'report6', name: '周报 06', permissions: { readable: true, manageable: true } });
  });

  it('gives third-party files their fullUrl in the recent list', async () => {
    const files = await getList(app, 'alice', '/search/files/recent?fileId=sheet');
    expect(files.find((f) => f.id === 'contract')).toMatchObject({ type: 'file', fullUrl: 'https://oa.example.com/contract' });
  });

  it('requires fileId and a user token', async () => {
    const missing = await app.inject({ method: 'GET', url: '/search/users/recent', headers: asUser('zhang') });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBe('invalid_request');
    const anonymous = await app.inject({ method: 'GET', url: '/search/files/recent?fileId=plan' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describeEachStore('recent lists and ranking, with activity', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    const { db } = store();
    await seedSearchCompany(db);
    // hanmeimei mentioned bob, then wang mentioned her; carol edited plan; hanmeimei worked on files.
    await addActivity(db, { userId: 'hanmeimei', kind: 'mention', relatedUserId: 'bob', fileId: 'sheet', occurredAt: '2024-05-01T09:00:00Z' });
    await addActivity(db, { userId: 'wang', kind: 'mention', relatedUserId: 'hanmeimei', fileId: 'plan', occurredAt: '2024-05-02T09:00:00Z' });
    await addActivity(db, { userId: 'carol', kind: 'edit', fileId: 'plan', occurredAt: '2024-05-01T12:00:00Z' });
    await addActivity(db, { userId: 'hanmeimei', kind: 'edit', fileId: 'sheet', occurredAt: '2024-05-01T10:00:00Z' });
    await addActivity(db, { userId: 'hanmeimei', kind: 'open', fileId: 'teamdoc', occurredAt: '2024-05-03T10:00:00Z' });
    // She opened secret once (no grant now) and report3 long ago.
    await addActivity(db, { userId: 'hanmeimei', kind: 'open', fileId: 'secret', occurredAt: '2024-05-04T10:00:00Z' });
    await addActivity(db, { userId: 'hanmeimei', kind: 'open', fileId: 'report3', occurredAt: '2024-04-20T10:00:00Z' });
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  it('ranks people by the latest activity with the viewer or on the file, then collaborators, then colleagues', async () => {
    const users = await getList(app, 'hanmeimei', '/search/users/recent?fileId=plan');
    expect(users.map((u) => u.id)).toEqual(['wang', 'carol', 'bob', 'zhang', 'lilei']);
  });

  it('ranks files the viewer worked on first, newest first, and drops those no longer readable', async () => {
    const files = await getList(app, 'hanmeimei', '/search/files/recent?fileId=plan');
    expect(files.map((f) => f.id)).toEqual(['teamdoc', 'sheet', 'report3', 'report7', 'report6', 'report5', 'report4', 'report2', 'report1']);
  });

  it('breaks ties within a tier by recent contact, then name', async () => {
    const found = await search(app, 'hanmeimei', { type: 'team_member', keyword: '', pageSize: 4 });
    expect(ids(found.teamMembers)).toEqual(['wang', 'bob', 'alice', 'ann']);
    const tier = await search(app, 'hanmeimei', { type: 'team_member', keyword: 'o' });
    // Every match is a substring match: bob (mentioned) comes before the names in order.
    expect(ids(tier.teamMembers).slice(0, 2)).toEqual(['bob', 'carol']);
  });

  it('offers recent contacts by keyword with the same ranking', async () => {
    const found = await search(app, 'hanmeimei', { type: 'recent_contact', keyword: 'wang', fileId: 'plan' });
    expect(ids(found.recentUsers)).toEqual(['wang']);
    const all = await search(app, 'hanmeimei', { type: 'recent_contact', keyword: '', fileId: 'plan', pageSize: 2, page: 2 });
    expect(all.recentUsers).toMatchObject({ count: 5, pageCount: 3 });
    expect(ids(all.recentUsers)).toEqual(['lilei']);
  });

  it('keeps files the viewer touched first in keyword search too', async () => {
    const found = await search(app, 'hanmeimei', { type: 'file_name', keyword: '周报', pageSize: 2 });
    expect(ids(found.files)).toEqual(['report3', 'report7']);
  });
});
