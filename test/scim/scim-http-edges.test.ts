import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { buildTestApp } from '../helpers/app.js';
import { SCIM_TOKEN, scimConfig } from './scim-client.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** One raw HTTP exchange over a real socket (what Node's parser refuses never reaches `inject`). */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

describe('SCIM addresses answer in SCIM error schema whichever layer refuses', () => {
  let store: OpenDatabase;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
    app = await buildTestApp(store, scimConfig('acme'));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  const headers = { authorization: `Bearer ${SCIM_TOKEN}` };

  it('a path parameter over the router limit is 414 and a malformed percent-encoding 400, as SCIM errors', async () => {
    const long = await app.inject({ method: 'GET', url: `/scim/v2/Users/${'x'.repeat(2000)}`, headers });
    expect(long.statusCode).toBe(414);
    expect(long.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(long.json()).toMatchObject({ schemas: [ERROR], status: '414', error: { code: 'uri_too_long' } });
    const bad = await app.inject({ method: 'GET', url: '/scim/v2/Users/%E0%A4%A', headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ schemas: [ERROR], status: '400', error: { code: 'invalid_url' } });
    // Elsewhere the contract's own shape stays.
    const api = await app.inject({ method: 'GET', url: `/api/users/${'x'.repeat(2000)}` });
    expect(api.statusCode).toBe(414);
    expect(api.json()).toEqual({ error: { code: 'uri_too_long', message: expect.any(String) } });
  });

  it('headers larger than the server accepts are 431: SCIM error schema on SCIM addresses, the error shape elsewhere', async () => {
    const big = `x-padding: ${'a'.repeat(20_000)}\r\n`;
    const onScim = await rawExchange(port, `GET /scim/v2/Users HTTP/1.1\r\nhost: x\r\n${big}\r\n`);
    expect(onScim).toMatch(/^HTTP\/1\.1 431 /);
    expect(onScim).toMatch(/content-type: application\/scim\+json/i);
    expect(bodyOf(onScim)).toMatchObject({ schemas: [ERROR], status: '431', error: { code: 'headers_too_large' } });
    const onApi = await rawExchange(port, `GET /api/users HTTP/1.1\r\nhost: x\r\n${big}\r\n`);
    expect(onApi).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(onApi)).toEqual({ error: { code: 'headers_too_large', message: expect.stringMatching(/headers are larger than the server accepts/) } });
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
