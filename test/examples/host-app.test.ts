import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { buildHostApp } from '../../examples/library-use/host-app.js';

/** The library-use example: a host directory of plain objects and host session tokens, on a real socket. */
describe('examples/library-use: a host application with its own directory', () => {
  let app: FastifyInstance;
  let store: OpenDatabase;
  let base: string;
  beforeAll(async () => {
    ({ app, store } = await buildHostApp());
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  const get = async (path: string, token: string) => {
    const response = await fetch(`${base}${path}`, { headers: { 'X-Platform-Token': token } });
    // Typed like `app.inject(...).json()`: the assertions below say what the body must be.
    return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> };
  };

  it('serves a file with permissions from the host grants (department inheritance, creator)', async () => {
    const ann = await get('/files/roadmap', 'session-ann'); // web -> eng editor
    expect(ann.status).toBe(200);
    expect(ann.body).toMatchObject({ id: 'roadmap', name: 'Roadmap 2025', teamGuid: 'example', views: 1 });
    expect(ann.body.permissions).toMatchObject({ readable: true, editable: true, manageable: false });
    expect((await get('/files/roadmap', 'session-ben')).body.permissions.manageable).toBe(true);
    expect((await get('/files/budget', 'session-ben')).body.permissions.readable).toBe(false);
  });

  it('lists files, users and departments through the same routes and rules', async () => {
    expect((await get('/files', 'session-ann')).body.map((file: { id: string }) => file.id)).toEqual(['roadmap', 'budget']);
    expect((await get('/users/current/info', 'session-ann')).body).toEqual({ id: 'ann', name: 'Ann Lee', avatar: '', email: 'ann@example.com', teamGuid: 'example' });
    expect((await get('/users/cho/watermark', 'session-ann')).body).toEqual({ watermarks: ['CONFIDENTIAL'] });
    expect((await get('/departments/TEAM_example/children', 'session-ann')).body).toEqual([{ id: 'eng', name: 'Engineering', allMemberCount: 2 }]);
    expect((await get('/users/ann/department-paths', 'session-ben')).body).toEqual([
      [
        { id: 'eng', name: 'Engineering' },
        { id: 'web', name: 'Web' },
      ],
    ]);
    const collaborators = await get('/files/budget/collaborators', 'session-ann');
    expect(collaborators.body.map((user: { id: string; isManager: boolean }) => [user.id, user.isManager])).toEqual([
      ['cho', true],
      ['ann', false],
    ]);
  });

  it('refuses tokens the host does not know', async () => {
    const response = await get('/users/current/info', 'session-nobody');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('token_forged');
  });
});
