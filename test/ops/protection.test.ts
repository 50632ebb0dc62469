import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { openDatabase } from '../../src/store/connection/database.js';
import { buildApp } from '../../src/composition/app.js';
import { buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { commentCreate, postEvent, tokenHeaders } from '../events/event-fixtures.js';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const limits = (overrides: Partial<Config['limits']>): Partial<Config> => ({ limits: { ...makeTestConfig().limits, ...overrides } });

/** Keeps the event loop busy for `ms`: what a CPU-bound burst does to every request in the process. */
function blockEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describeEachStore('overload protection', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), limits({ overloadEventLoopDelayMs: 20, retryAfterSeconds: 5 }));
  });
  afterAll(async () => {
    await app.close();
  });

  it('past the event-loop bound answers 503 with Retry-After, but POST /events keeps accepting and storing', async () => {
    let seen: { refused: Awaited<ReturnType<FastifyInstance['inject']>>; event: { statusCode: number } } | undefined;
    // The delay is a mean over a 10 ms sample: block the loop, then ask at once, until a sample catches it.
    for (let attempt = 0; attempt < 100 && !seen; attempt++) {
      blockEventLoop(80);
      const [event, refused] = await Promise.all([
        postEvent(app, 'Comment', commentCreate('plan', 'zhang', { guid: `overload-${attempt}`, content: 'still stored' }), tokenHeaders('zhang')),
        app.inject({ method: 'GET', url: '/users/current/info', headers: tokenHeaders('zhang') }),
      ]);
      if (refused.statusCode === 503) seen = { refused, event };
      else expect(refused.statusCode).toBe(200);
      expect(event.statusCode).toBe(200);
    }
    expect(seen, 'no sample caught the blocked event loop').toBeDefined();
    expect(seen!.refused.headers['retry-after']).toBe('5');
    expect(seen!.refused.json().error).toMatchObject({ code: 'overloaded' });
    expect(seen!.event.statusCode).toBe(200);
    // Every accepted event is in the log.
    const stored = await store().db.selectFrom('events').select('body').where('kind', '=', 'Comment').execute();
    expect(stored.filter((row) => row.body.includes('overload-')).length).toBeGreaterThan(0);
  });

  it('/readyz says so while overloaded; /healthz still answers', async () => {
    let reason: string | undefined;
    for (let attempt = 0; attempt < 100 && reason === undefined; attempt++) {
      blockEventLoop(80);
      const [ready, alive] = await Promise.all([app.inject({ method: 'GET', url: '/readyz' }), app.inject({ method: 'GET', url: '/healthz' })]);
      expect(alive.statusCode).toBe(200);
      if (ready.statusCode === 503) reason = ready.json().checks.load;
    }
    expect(reason).toMatch(/^overloaded: event-loop delay (\d+ ms|past measure, the loop was blocked throughout the sample) over the 20 ms bound$/);
  });
});

describeEachStore('rate limits', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_KEY, ...limits({ tokenRateLimit: { max: 2, windowMs: 60_000 }, manageRateLimit: { max: 3, windowMs: 60_000 } }) });
  });
  afterAll(async () => {
    await app.close();
  });
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };

  it('token minting past RATE_LIMIT_TOKENS is 429 rate_limited with Retry-After, and mints nothing', async () => {
    const mint = () => app.inject({ method: 'POST', url: '/api/tokens', headers: admin, payload: { userId: 'zhang' } });
    expect((await mint()).statusCode).toBe(201);
    expect((await mint()).statusCode).toBe(201);
    const refused = await mint();
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/^too many requests: retry in \d+/) } });
  });

  it('the rest of the management API has its own limit (RATE_LIMIT_MANAGE), per client across its routes; the platform callbacks have none', async () => {
    const statuses: number[] = [];
    for (const url of ['/api/events?limit=1', '/api/audit?limit=1', '/api/reminders?limit=1', '/api/notifications?limit=1'])
      statuses.push((await app.inject({ method: 'GET', url, headers: admin })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another client has its own count.
    expect((await app.inject({ method: 'GET', url: '/api/events?limit=1', headers: admin, remoteAddress: '10.0.0.9' })).statusCode).toBe(200);
    for (let i = 0; i < 20; i++) expect((await app.inject({ method: 'GET', url: '/users/current/info', headers: tokenHeaders('zhang') })).statusCode).toBe(200);
  });
});

/** Writes `first`, then `next` every `everyMs` until the server closes the socket; resolves with what it answered. */
function trickle(port: number, first: string, next: string, everyMs: number): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(first);
      timer = setInterval(() => socket.write(next), everyMs);
    });
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterMs: performance.now() - started });
    });
  });
}

describe('request time-outs (a real socket)', { timeout: 30_000 }, () => {
  let app: FastifyInstance;
  let port: number;
  let closeStore: () => Promise<void>;
  beforeAll(async () => {
    const store = await openDatabase('sqlite::memory:');
    closeStore = () => store.close();
    app = await buildApp({
      config: makeTestConfig(limits({ requestTimeoutMs: 800, headersTimeoutMs: 400, connectionTimeoutMs: 600, keepAliveTimeoutMs: 700 })),
      store,
      logger: false,
    });
    // A handler that says nothing for longer than CONNECTION_TIMEOUT.
    app.get('/test-silent-handler', () => new Promise((resolve) => setTimeout(() => resolve({}), 10_000)));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    await closeStore();
  });

  it('headers trickled a line at a time are cut at HEADERS_TIMEOUT with 408', async () => {
    const { answer, closedAfterMs } = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 100);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(5000);
  });

  it('a body trickled a byte at a time is cut at REQUEST_TIMEOUT with 408, however steadily it comes', async () => {
    const head = 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Platform-Sdk-Event: Comment\r\nContent-Length: 10000\r\n\r\n{';
    const { answer, closedAfterMs } = await trickle(port, head, ' ', 100);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeGreaterThanOrEqual(700);
    expect(closedAfterMs).toBeLessThan(5000);
  });

  it('a connection that sends nothing is answered 408 and closed at HEADERS_TIMEOUT', async () => {
    const { answer, closedAfterMs } = await trickle(port, '', '', 60_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(5000);
  });

  it('a connection silent for CONNECTION_TIMEOUT while its request is handled is closed', async () => {
    const { answer, closedAfterMs } = await trickle(port, 'GET /test-silent-handler HTTP/1.1\r\nHost: x\r\n\r\n', '', 60_000);
    expect(answer).toBe('');
    expect(closedAfterMs).toBeGreaterThanOrEqual(500);
    expect(closedAfterMs).toBeLessThan(5000);
  });

  it('a kept-alive connection left idle after its request is closed at KEEP_ALIVE_TIMEOUT', async () => {
    const { answer, closedAfterMs } = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '', 60_000);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(closedAfterMs).toBeGreaterThanOrEqual(600);
    expect(closedAfterMs).toBeLessThan(5000);
  });
});
