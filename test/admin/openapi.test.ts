import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { buildTestApp } from '../helpers/app.js';

describe('OpenAPI documentation at /docs', () => {
  let store: OpenDatabase;
  let app: FastifyInstance;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
    app = await buildTestApp(store);
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it('serves the UI and a document of every route with its schemas and credential', async () => {
    const ui = await app.inject({ method: 'GET', url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);

    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.components.securitySchemes.platformSignature).toEqual({ type: 'apiKey', in: 'header', name: 'X-Platform-Signature' });
    expect(doc.security).toEqual([{ userToken: [] }]);
    const byUser = doc.paths['/admin/files/{fileId}/by-user-id'].get;
    expect(byUser.security).toEqual([{ platformSignature: [] }]);
    expect(byUser.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['fileId', 'userId']);
    expect(Object.keys(byUser.responses).sort()).toEqual(['200', '400', '401', '403', '404']);
    expect(doc.paths['/files/{fileId}'].get.responses['200']).toBeDefined();
    expect(doc.paths['/healthz']).toBeUndefined();
  });

  it('groups the routes by tag: callbacks, events, management, notifications, scim, platform, operations; none untagged', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      tags: Array<{ name: string }>;
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    expect(doc.tags.map((tag) => tag.name)).toEqual(['callbacks', 'events', 'management', 'notifications', 'scim', 'platform', 'operations']);
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, tags: operation.tags })),
    );
    expect(operations.length).toBeGreaterThan(60);
    expect(operations.filter((operation) => operation.tags?.length !== 1 || !doc.tags.some((tag) => tag.name === operation.tags?.[0]))).toEqual([]);
    const tagOf = (route: string) => operations.find((operation) => operation.route === route)?.tags?.[0];
    expect(tagOf('GET /files/{fileId}')).toBe('callbacks');
    expect(tagOf('GET /admin/files/{fileId}/by-user-id')).toBe('callbacks');
    expect(tagOf('POST /events')).toBe('events');
    expect(tagOf('GET /api/users')).toBe('management');
    expect(tagOf('GET /api/platform/seats')).toBe('platform');
    expect(tagOf('GET /api/notification-channels')).toBe('notifications');

    const scimStore = await openDatabase('sqlite::memory:');
    const withScim = await buildTestApp(scimStore, { sync: { scim: { token: 'scim-token-0123456789abcdef', teamId: 'acme', teamName: 'Acme' }, ldap: undefined } });
    try {
      const scimDoc = (await withScim.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
      const scimPaths = Object.entries(scimDoc.paths).filter(([path]) => path.startsWith('/scim/'));
      expect(scimPaths.length).toBeGreaterThan(0);
      for (const [path, methods] of scimPaths) for (const [method, operation] of Object.entries(methods)) expect(operation.tags, `${method} ${path}`).toEqual(['scim']);
    } finally {
      await withScim.close();
      await scimStore.close();
    }
  });
});
