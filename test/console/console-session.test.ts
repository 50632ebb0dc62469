import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSessions } from '../../src/auth/console-sessions.js';
import { sqlConsoleSessions } from '../../src/store/console/console-sessions.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const KEY = 'console-admin-key-0123456789';

/** The session cookie of a sign-in answer, as `name=value` for the next request's Cookie header. */
function sessionCookie(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === 'collab_console' || c.name === '__Host-collab_console');
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(response.headers['set-cookie'])}`);
  return `${cookie.name}=${cookie.value}`;
}

async function signIn(app: FastifyInstance, key = KEY) {
  const response = await app.inject({ method: 'POST', url: '/console/session', payload: { key } });
  expect(response.statusCode).toBe(201);
  return { cookie: sessionCookie(response), csrfToken: response.json().csrfToken as string, response };
}

describe('console switch', () => {
  let store: OpenDatabase;
  let off: FastifyInstance;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
    off = await buildTestApp(store);
  });
  afterAll(async () => {
    await off.close();
    await store.close();
  });

  it('is off (404 console_disabled) without ADMIN_API_KEY, pages and sign-in alike', async () => {
    for (const [method, url] of [
      ['GET', '/console'],
      ['GET', '/console/'],
      ['GET', '/console/assets/x.js'],
      ['POST', '/console/session'],
    ] as const) {
      const response = await off.inject({ method, url, payload: method === 'POST' ? { key: KEY } : undefined });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code).toBe('console_disabled');
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });
});

describe('console pages', () => {
  let store: OpenDatabase;
  let dir: string;
  let built: FastifyInstance;
  let notBuilt: FastifyInstance;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
    dir = await mkdtemp(join(tmpdir(), 'console-files-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>控制台</title><script type="module" src="/console/assets/app-1a2b.js"></script>');
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'assets')));
    await writeFile(join(dir, 'assets', 'app-1a2b.js'), 'console.log(1)');
    built = await buildTestApp(store, { adminApiKey: KEY }, { consoleDir: dir });
    notBuilt = await buildTestApp(store, { adminApiKey: KEY }, { consoleDir: join(dir, 'missing') });
  });
  afterAll(async () => {
    await built.close();
    await notBuilt.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the page with a strict content security policy, no caching of index.html, and redirects /console', async () => {
    const page = await built.inject({ method: 'GET', url: '/console/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('控制台');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-cache');
    const asset = await built.inject({ method: 'GET', url: '/console/assets/app-1a2b.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const bare = await built.inject({ method: 'GET', url: '/console' });
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe('/console/');
  });

  it('says how to build the console when its files are missing', async () => {
    const response = await notBuilt.inject({ method: 'GET', url: '/console/' });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe('console_not_built');
    expect(response.json().error.message).toContain('npm run build:console');
  });
});

describeEachStore('console sessions over HTTP', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a wrong key, a prefix of the key and the key with more after it (401, no cookie)', async () => {
    for (const key of ['wrong-key-0123456789abcdef', KEY.slice(0, -1), `${KEY}x`, ' ']) {
      const response = await app.inject({ method: 'POST', url: '/console/session', payload: { key } });
      expect(response.statusCode, key).toBe(401);
      expect(response.json().error.code).toBe('admin_key_invalid');
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    const empty = await app.inject({ method: 'POST', url: '/console/session', payload: {} });
    expect(empty.statusCode).toBe(400);
  });

  it('signs in with the admin key: an HttpOnly, SameSite=Strict cookie with the session lifetime', async () => {
    const { response } = await signIn(app);
    const header = String(response.headers['set-cookie']);
    expect(header).toMatch(/^collab_console=[A-Za-z0-9_-]{43};/);
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Strict');
    expect(header).toContain('Path=/');
    expect(header).toContain('Max-Age=28800');
    expect(header).toMatch(/Expires=/);
    expect(header).not.toContain('Secure');
    const body = response.json();
    expect(body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The body never carries the cookie's token.
    expect(header).not.toContain(body.csrfToken);
    expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(8 * 3600_000 - 60_000);
  });

  it('reads /api with the session and answers the session again after a reload', async () => {
    const { cookie, csrfToken } = await signIn(app);
    const events = await app.inject({ method: 'GET', url: '/api/events', headers: { cookie } });
    expect(events.statusCode).toBe(200);
    expect(events.json()).toEqual({ items: [], nextCursor: null });
    const session = await app.inject({ method: 'GET', url: '/console/session', headers: { cookie } });
    expect(session.statusCode).toBe(200);
    expect(session.json().csrfToken).toBe(csrfToken);
    // No PLATFORM_API_URL here: the page then leaves /api/platform alone (no 503 in the browser's console).
    expect(session.json().platformConfigured).toBe(false);
    const none = await app.inject({ method: 'GET', url: '/console/session' });
    expect(none.statusCode).toBe(401);
    // The console page only asks whether it is signed in: no session is an answer (204), not a 401 in the browser's console.
    const probe = await app.inject({ method: 'GET', url: '/console/session', headers: { 'x-console-probe': '1' } });
    expect(probe.statusCode).toBe(204);
    expect(probe.body).toBe('');
    const probeSignedIn = await app.inject({ method: 'GET', url: '/console/session', headers: { cookie, 'x-console-probe': '1' } });
    expect(probeSignedIn.statusCode).toBe(200);
  });

  it("refuses a write without the CSRF token, or with another session's, and writes nothing", async () => {
    const { cookie, csrfToken } = await signIn(app);
    const other = await signIn(app);
    const put = (headers: Record<string, string>) => app.inject({ method: 'PUT', url: '/api/teams/csrf-team', headers: { cookie, ...headers }, payload: { name: 'CSRF 测试' } });
    for (const headers of <Array<Record<string, string>>>[{}, { 'x-csrf-token': 'x' }, { 'x-csrf-token': other.csrfToken }, { 'x-csrf-token': csrfToken.slice(0, -1) }]) {
      const refused = await put(headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('csrf_token_invalid');
    }
    const resend = await app.inject({ method: 'POST', url: '/api/notifications/n1/resend', headers: { cookie } });
    expect(resend.statusCode).toBe(403);
    expect(await store().db.selectFrom('teams').select('id').where('id', '=', 'csrf-team').executeTakeFirst()).toBeUndefined();

    const written = await put({ 'x-csrf-token': csrfToken });
    expect(written.statusCode).toBeLessThan(300);
    expect(await store().db.selectFrom('teams').select('name').where('id', '=', 'csrf-team').executeTakeFirst()).toEqual({ name: 'CSRF 测试' });
    const resendChecked = await app.inject({ method: 'POST', url: '/api/notifications/n1/resend', headers: { cookie, 'x-csrf-token': csrfToken } });
    expect(resendChecked.statusCode).toBe(404);
  });

  it('lets the Bearer key win over a cookie: a wrong key with a valid session is refused', async () => {
    const { cookie } = await signIn(app);
    const response = await app.inject({ method: 'GET', url: '/api/events', headers: { cookie, authorization: 'Bearer wrong-key-0123456789abc' } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('admin_key_invalid');
  });

  it('refuses a made-up or malformed session cookie', async () => {
    for (const value of ['A'.repeat(43), 'short', '']) {
      const response = await app.inject({ method: 'GET', url: '/api/events', headers: { cookie: `collab_console=${value}` } });
      expect(response.statusCode, value).toBe(401);
      expect(response.json().error.code).toBe('console_session_invalid');
    }
  });

  it('signs out: the CSRF token is needed, the cookie is cleared, and the old cookie no longer opens /api', async () => {
    const { cookie, csrfToken } = await signIn(app);
    const withoutToken = await app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie } });
    expect(withoutToken.statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/events', headers: { cookie } })).statusCode).toBe(200);

    const out = await app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie, 'x-csrf-token': csrfToken } });
    expect(out.statusCode).toBe(204);
    const cleared = String(out.headers['set-cookie']);
    expect(cleared).toMatch(/^collab_console=;/);
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
    const after = await app.inject({ method: 'GET', url: '/api/events', headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('console_session_invalid');
    // Signing out again is harmless.
    expect((await app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie } })).statusCode).toBe(204);
  });

  it('ends every session when ADMIN_API_KEY changes', async () => {
    const { cookie } = await signIn(app);
    const rotated = await buildTestApp(store(), { adminApiKey: 'a-new-admin-key-0123456789' });
    try {
      const response = await rotated.inject({ method: 'GET', url: '/api/events', headers: { cookie } });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('console_session_invalid');
    } finally {
      await rotated.close();
    }
  });

  it('uses a Secure __Host- cookie when PUBLIC_URL is https', async () => {
    const secure = await buildTestApp(store(), { adminApiKey: KEY, publicUrl: 'https://collab.example.com' });
    try {
      const { response, cookie } = await signIn(secure);
      const header = String(response.headers['set-cookie']);
      expect(header).toMatch(/^__Host-collab_console=/);
      expect(header).toContain('Secure');
      expect((await secure.inject({ method: 'GET', url: '/api/events', headers: { cookie } })).statusCode).toBe(200);
    } finally {
      await secure.close();
    }
  });
});

describeEachStore('console sessions expire', (store) => {
  it('a session is valid until its expiry and not a second after; expired rows are cleaned at the next sign-in', async () => {
    let now = Date.parse('2025-01-01T00:00:00Z');
    const sessions = new ConsoleSessions(KEY, sqlConsoleSessions(store().db), { ttlSeconds: 3600, secureCookie: false, now: () => now });
    const first = await sessions.signIn(KEY);
    if (!first) throw new Error('sign-in refused');
    expect(first.expiresAt).toBe('2025-01-01T01:00:00Z');
    now += 3600_000 - 1;
    expect(await sessions.verify(first.token)).toEqual({ csrfToken: first.csrfToken, expiresAt: '2025-01-01T01:00:00Z' });
    now += 1;
    expect(await sessions.verify(first.token)).toBeUndefined();
    expect(await sessions.signIn('not the key at all')).toBeUndefined();
    await sessions.signIn(KEY);
    const rows = await store().db.selectFrom('console_sessions').select(['id', 'expires_ms']).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.id).not.toContain(first.token);
    expect(Number(rows[0]?.expires_ms)).toBe(now + 3600_000);
  });
});
