import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { buildTestApp } from '../helpers/app.js';

describe('the application shell', () => {
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

  it('answers GET /healthz', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('gives every response a request id, keeping a well-formed one the caller sent', async () => {
    const fresh = await app.inject({ method: 'GET', url: '/healthz' });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const given = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-42' } });
    expect(given.headers['x-request-id']).toBe('trace-42');
    const odd = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(odd.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('answers an unknown route with the JSON error', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere?token=secret' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: 'no route GET /nowhere' } });
  });

  it('answers malformed JSON with a 400 invalid_json', async () => {
    const key = 'admin-key-0123456789abcdef';
    const admin = await buildTestApp(store, { adminApiKey: key });
    try {
      const response = await admin.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        payload: '{"userId": ',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_json');
    } finally {
      await admin.close();
    }
  });
});
