import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { buildTestApp, makeTestConfig, tokenFor } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

/**
 * Issue 20, finding 1 outside SCIM: a request's keys never reach an object's prototype. Every route of the
 * OpenAPI document (and the console's session) is sent `__proto__`, `constructor` and `prototype` as query
 * keys, as values of its own parameters and as keys of its JSON body (top level and in every declared
 * property), with each kind of credential. None answers 5xx, `Object.prototype` is what it was, and a
 * file read afterwards carries no field it never had.
 */
const ADMIN_KEY = 'proto-admin-key-0123456789';
const HOSTILE_QUERY = ['__proto__[polluted]=yes', '__proto__.polluted=yes', 'constructor[prototype][polluted]=yes', 'prototype[polluted]=yes', '__proto__=yes'].join('&');
const HOSTILE_OBJECT = '{"__proto__":{"polluted":"yes","downloadUrl":"pr"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}';
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype'];
/** 5xx answers that are the platform's side of a call, not a fault (the platform API is not configured). */
const UPSTREAM = new Set(['platform_not_configured', 'platform_unreachable', 'platform_refused', 'platform_timeout']);

interface Operation {
  method: string;
  path: string;
  query: string[];
  bodyProperties: string[] | undefined;
}

describeEachStore('prototype keys in every request', (store) => {
  let app: FastifyInstance;
  const config = makeTestConfig({ adminApiKey: ADMIN_KEY });

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  it('neither pollutes a prototype nor crashes, on any route with any credential', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const fileBefore = (await app.inject({ method: 'GET', url: '/api/files/plan', headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json() as Record<string, unknown>;
    const credentials: Array<Record<string, string>> = [
      { authorization: `Bearer ${ADMIN_KEY}` },
      { 'x-platform-token': tokenFor('zhang', config) },
      { 'x-platform-credential-type': '3', 'x-platform-signature': mintSignature({ appId: config.appId, appSecret: config.appSecret }, { ttlSeconds: 240, fileId: 'plan' }) },
    ];
    const faults: string[] = [];
    for (const operation of operationsOf(app)) {
      for (const request of requestsFor(operation)) {
        for (const headers of credentials) {
          const response = await app.inject({ ...request, headers: { ...headers, ...request.headers } });
          const code = response.statusCode >= 500 ? (response.json() as { error?: { code?: string } }).error?.code : undefined;
          if (response.statusCode >= 500 && !UPSTREAM.has(code ?? '')) faults.push(`${request.method} ${request.url} → ${response.statusCode} ${response.body.slice(0, 200)}`);
        }
      }
    }
    expect(faults).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).downloadUrl).toBeUndefined();
    const fileAfter = await app.inject({ method: 'GET', url: '/api/files/plan', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(fileAfter.statusCode).toBe(200);
    expect(fileAfter.json()).toEqual(fileBefore);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

function operationsOf(app: FastifyInstance): Operation[] {
  type Parameter = { in: string; name: string };
  type Described = { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } };
  const document = app.swagger() as { paths: Record<string, Record<string, Described>> };
  const operations = Object.entries(document.paths)
    .filter(([path]) => !path.startsWith('/scim'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        query: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        bodyProperties: ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase())
          ? Object.keys(operation.requestBody?.content?.['application/json']?.schema?.properties ?? {})
          : undefined,
      })),
    );
  // The console's sign-in is not in the document (it is the console's, not the API's).
  return [...operations, { method: 'POST', path: '/console/session', query: [], bodyProperties: ['key'] }];
}

/** The hostile requests for one operation: prototype names as query keys and values, path ids, and body keys. */
type HostileRequest = InjectOptions & { method: NonNullable<InjectOptions['method']>; url: string; headers: Record<string, string> };

function requestsFor(operation: Operation): HostileRequest[] {
  const requests: HostileRequest[] = [];
  const method = operation.method as HostileRequest['method'];
  for (const name of PROTOTYPE_NAMES) {
    const path = operation.path.replace(/\{\w+\}/g, name);
    const ownParameters = operation.query.map((parameter) => `${encodeURIComponent(parameter)}=${name}`).join('&');
    const url = `${path}?${HOSTILE_QUERY}${ownParameters ? `&${ownParameters}` : ''}`;
    const headers: Record<string, string> = operation.path === '/events' ? { 'x-platform-sdk-event': 'Comment' } : {};
    if (operation.bodyProperties === undefined) {
      requests.push({ method, url, headers });
      continue;
    }
    const inProperties = operation.bodyProperties.map((property) => `${JSON.stringify(property)}:${HOSTILE_OBJECT}`);
    const body = `{${[HOSTILE_OBJECT.slice(1, -1), ...inProperties, `"${name}":{"polluted":"yes"}`].join(',')}}`;
    requests.push({ method, url, headers: { ...headers, 'content-type': 'application/json' }, payload: body });
  }
  return requests;
}
