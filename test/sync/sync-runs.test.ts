import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { syncOwners } from '../../src/sync/owners.js';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scim, SCIM_TOKEN, USER_SCHEMA } from '../scim/scim-client.js';
import { callAs, configWithSync } from './sync-helpers.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const LDAP = { LDAP_URL: 'ldap://127.0.0.1:1', LDAP_BASE_DN: 'dc=example,dc=com' };

it('one team cannot be kept by two sources: the configuration refuses it', () => {
  expect(() => configWithSync({ SCIM_TOKEN, SCIM_TEAM_ID: 'acme', ...LDAP, LDAP_TEAM_ID: 'acme' })).toThrow(ConfigError);
  expect(() => configWithSync({ SCIM_TOKEN, SCIM_TEAM_ID: 'acme', ...LDAP, LDAP_TEAM_ID: 'acme' })).toThrow(
    'SCIM_TEAM_ID and LDAP_TEAM_ID must differ: a team is kept by one source',
  );
  expect([...syncOwners(configWithSync({ SCIM_TOKEN, SCIM_TEAM_ID: 'acme', ...LDAP, LDAP_TEAM_ID: 'other' }))]).toEqual([
    ['acme', 'scim'],
    ['other', 'ldap'],
  ]);
});

describeEachStore('sync runs and team ownership', (store) => {
  let app: FastifyInstance;
  const config = configWithSync({ SCIM_TOKEN, SCIM_TEAM_ID: 'acme', ...LDAP, LDAP_TEAM_ID: 'other' });
  const admin = async (url: string) => {
    const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_API_KEY}` } });
    return { status: response.statusCode, body: response.json() };
  };

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { ...config, adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  it('another source writing a kept team is refused with 409 team_owned_by_source, and nothing is written', async () => {
    const changes = directoryChanges(store(), { owners: syncOwners(config) });
    const intruder = { id: 'mallory', name: 'Mallory', teamId: 'acme' };
    for (const source of ['ldap', 'api', 'snapshot']) {
      const result = await changes.apply({ upsert: { users: [intruder] } }, { source });
      expect(result).toMatchObject({ ok: false, status: 409, code: 'team_owned_by_source' });
    }
    // Moving a user out of the LDAP team counts as writing to it too.
    expect(await changes.apply({ upsert: { users: [{ id: 'olga', name: 'Olga', teamId: 'acme' }] } }, { source: 'scim' })).toMatchObject({
      ok: false,
      code: 'team_owned_by_source',
    });
    expect((await callAs(app, 'zhang', '/users/mallory')).status).toBe(404);
    expect(await changes.apply({ upsert: { users: [intruder] } }, { source: 'scim', dryRun: true })).toMatchObject({
      ok: true,
      dryRun: true,
      diff: { created: { users: ['mallory'] } },
    });
    expect((await callAs(app, 'zhang', '/users/mallory')).status).toBe(404);
  });

  it('records every SCIM write as a run and lists runs newest first with a cursor', async () => {
    const created = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'runner@acme.example', displayName: '跑步者' });
    expect(created.status).toBe(201);
    const runner = created.body.id as string;
    await scim(app, 'PATCH', `/Users/${runner}`, patchOp({ op: 'replace', value: { active: false } }));
    // Takes over acme's user zhang: active, with that e-mail, and no SCIM resource yet.
    await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'Zhang', emails: [{ value: 'zhang@example.com', primary: true }] });
    await scim(app, 'POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Ghost/Child' }); // refused before any write: no run

    const page = await admin('/api/sync/runs?source=scim&limit=2');
    expect(page.status).toBe(200);
    const [third, second] = page.body.items;
    expect(third).toMatchObject({
      source: 'scim',
      mode: 'request',
      status: 'ok',
      detail: 'POST /Users',
      counts: { created: 0, updated: 1 },
      changes: { users: { updated: ['zhang'] } },
    });
    expect(second).toMatchObject({
      detail: `PATCH /Users/${runner}`,
      status: 'ok',
      counts: { created: 0, updated: 1, removed: 0, deactivated: 1, reactivated: 0 },
      changes: { users: { updated: [runner], deactivated: [runner] } },
      errors: [],
    });
    expect(typeof second.durationMs).toBe('number');
    expect(second.startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const rest = await admin(`/api/sync/runs?source=scim&limit=2&cursor=${page.body.nextCursor}`);
    expect(rest.body.items.map((run: { detail: string }) => run.detail)).toEqual(['POST /Users']);
    expect(rest.body.items[0]).toMatchObject({ counts: { created: 1 }, changes: { users: { created: [runner] } } });
    expect((await admin('/api/sync/runs?source=ldap')).body).toEqual({ items: [], nextCursor: null });
    expect((await admin('/api/sync/runs?cursor=bm9wZQ')).status).toBe(400);
    expect((await admin('/api/sync/runs?source=ftp')).status).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/sync/runs' })).statusCode).toBe(401);
  });
});
