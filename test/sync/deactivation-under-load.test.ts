import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { readSyncConfig } from '../../src/config/sync.js';
import { upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scim, SCIM_TOKEN, USER_SCHEMA } from '../scim/scim-client.js';

/**
 * A deactivation locks the user out at once, whatever the load (issue 22): while many of the user's own
 * callbacks are in flight, every one that starts after the deactivation was answered is refused, though
 * each process remembers the verified token. Through SCIM and through the management API.
 */
const ADMIN_KEY = 'admin-key-for-the-deactivation-test';
const CALLERS = 40;

describeEachStore('deactivation under load', (store) => {
  let config: Config;
  let app: FastifyInstance;

  beforeAll(async () => {
    const env: Record<string, string> = { SCIM_TOKEN, SCIM_TEAM_ID: 'idp' };
    config = makeTestConfig({ sync: readSyncConfig((name) => env[name]), adminApiKey: ADMIN_KEY });
    await upsertTeams(store().db, [{ id: 'acme', name: 'Acme' }]);
    await upsertUsers(store().db, [{ id: 'wang', name: 'Wang', email: null, avatar: null, teamId: 'acme', watermark: null, departmentIds: [] }]);
    app = await buildTestApp(store(), config);
  });
  afterAll(async () => {
    await app?.close();
  });

  /**
   * `CALLERS` loops of `GET /users/current/info` as the user, and `deactivate` in the middle of them; each
   * request notes whether it started after the deactivation was answered. Returns what those got.
   */
  async function underLoad(userId: string, deactivate: () => Promise<number>) {
    const headers = asUser(userId, config);
    let answered = false;
    let stop = false;
    const before: number[] = [];
    const after: number[] = [];
    const caller = async () => {
      while (!stop) {
        const startedAfter = answered;
        const response = await app.inject({ method: 'GET', url: '/users/current/info', headers });
        (startedAfter ? after : before).push(response.statusCode);
        if (startedAfter && after.length >= CALLERS * 5) stop = true;
        // Injected requests answer in microtasks: a turn of the event loop lets I/O (the deactivation's) in.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const callers = Array.from({ length: CALLERS }, caller);
    // The load is running (and the token is remembered) before the deactivation.
    while (before.length < CALLERS * 3) await new Promise((resolve) => setImmediate(resolve));
    const status = await deactivate();
    answered = true;
    await Promise.all(callers);
    return { status, before, after };
  }

  it('through SCIM: every callback started after PATCH active=false was answered is refused', async () => {
    const created = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'li.lei', name: { formatted: 'Li Lei' }, active: true });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const { status, before, after } = await underLoad(id, async () => (await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', value: { active: false } }))).status);
    expect(status).toBe(200);
    expect(before.filter((code) => code === 200).length).toBeGreaterThanOrEqual(CALLERS * 3);
    expect(after.length).toBeGreaterThanOrEqual(CALLERS * 5);
    expect(new Set(after)).toEqual(new Set([401]));
  });

  it('through the management API: every callback started after the PUT with active=false was answered is refused', async () => {
    const { status, before, after } = await underLoad('wang', async () => {
      const response = await app.inject({
        method: 'PUT',
        url: '/api/users/wang',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        payload: { id: 'wang', name: 'Wang', teamId: 'acme', active: false },
      });
      return response.statusCode;
    });
    expect(status).toBe(200);
    expect(before.filter((code) => code === 200).length).toBeGreaterThanOrEqual(CALLERS * 3);
    expect(new Set(after)).toEqual(new Set([401]));
  });
});
