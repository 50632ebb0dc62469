import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
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
});
