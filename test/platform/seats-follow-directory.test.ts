import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { seatTaskWorker } from '../../src/composition/platform-wiring.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_KEY = 'seat-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/**
 * Issue 11 section 4 and issue 14 section 4, end to end: a user deactivated or removed through the
 * management API gives back their seat on the platform (the simulator) through the seat tasks, and gets it
 * back on re-activation; their tokens are refused at once, before any seat call.
 */
describeEachStore('seats follow the directory', (store) => {
  let sim: RunningSimulator;
  let app: FastifyInstance;
  let config: ReturnType<typeof makeTestConfig>;

  beforeAll(async () => {
    await seedDirectory(store().db);
    const credentials = { appId: 'seat-app', appSecret: 'seat-app-secret-0123456789' };
    sim = await startSimulator({ credentials });
    config = makeTestConfig({ ...credentials, adminApiKey: ADMIN_KEY, platformApiUrl: sim.url });
    app = await buildTestApp(store(), config);
    for (const userId of ['bob', 'wang']) sim.platform.world.seats.set(userId, { status: 1, createdAt: '2025-01-01T00:00:00Z' });
  });
  afterAll(async () => {
    await app.close();
    await sim.close();
  });

  const sendSeatTasks = async () => {
    const worker = seatTaskWorker(config, store())!;
    while ((await worker.runOnce()) > 0);
  };
  const seat = (userId: string) => sim.platform.world.seats.get(userId)?.status;
  const user = async (userId: string) => (await app.inject({ method: 'GET', url: `/api/users/${userId}`, headers: admin })).json() as Record<string, unknown>;

  it('deactivating a user refuses their token at once and deactivates their seat; re-activating gives it back', async () => {
    const bob = await user('bob');
    const off = await app.inject({ method: 'PUT', url: '/api/users/bob', headers: admin, payload: { ...bob, active: false } });
    expect(off.statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/users/current/info', headers: asUser('bob', config) })).json().error.code).toBe('token_user_inactive');

    const queued = await app.inject({ method: 'GET', url: '/api/platform/seat-tasks', headers: admin });
    expect(queued.statusCode).toBe(200);
    expect(JSON.stringify(queued.json())).toContain('"deactivate"');
    expect(seat('bob')).toBe(1);
    await sendSeatTasks();
    expect(seat('bob')).toBe(0);

    const on = await app.inject({ method: 'PUT', url: '/api/users/bob', headers: admin, payload: { ...bob, active: true } });
    expect(on.statusCode).toBe(200);
    await sendSeatTasks();
    expect(seat('bob')).toBe(1);
    expect((await app.inject({ method: 'GET', url: '/users/current/info', headers: asUser('bob', config) })).statusCode).toBe(200);
  });

  it('removing a user deactivates their seat', async () => {
    expect((await app.inject({ method: 'DELETE', url: '/api/users/wang', headers: admin })).statusCode).toBe(204);
    await sendSeatTasks();
    expect(seat('wang')).toBe(0);
  });
});
