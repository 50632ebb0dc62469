import type { FastifyInstance } from 'fastify';
import { Attribute, Change } from 'ldapts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import type { Config } from '../../src/config/config.js';
import { readSyncConfig } from '../../src/config/sync.js';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { ROLES } from '../../src/directory/types.js';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { runLdapSync, type LdapSyncDeps } from '../../src/sync/ldap/ldap-sync.js';
import { ldapSyncDeps } from '../../src/sync/sync-deps.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scim, SCIM_TOKEN, USER_SCHEMA, GROUP_SCHEMA } from '../scim/scim-client.js';
import { SKIP_MESSAGE, SLAPD, startSlapd, type RunningSlapd } from '../sync/slapd.js';
import { COMPANY_LDIF, ldapEnv, PEOPLE_DN } from '../sync/sync-helpers.js';
import {
  DEPARTMENTS,
  expectModelEqualsReference,
  idsOfRows,
  expectSearchEqualsReference,
  FILES,
  KEYWORDS,
  NAMES,
  random,
  randomWrite,
  TEAMS,
  USERS,
  type Rng,
} from './read-model-checks.js';

/**
 * The model-based test of issue 21 through every path that writes the directory: the management API,
 * a snapshot import (merge), SCIM, the LDAP sync against a real slapd, the store's writers and a DBA's
 * SQL, in random order. After each step every read of the read model equals what the brute-force
 * reference computes from the rows, for every id the rows hold, and the app itself (its own read model)
 * answers each user's `GET /users/current/info` as the rows say.
 */
const ADMIN_KEY = 'admin-key-for-the-write-paths-test';
const SCIM_TEAM = 'acme';
const LDAP_TEAM = 'corp';
const LDAP_USERS = ['lilei', 'hanmeimei', 'zhangsan', 'bob.lee', 'emma.stone', 'guojing'];

if (!SLAPD) console.log(`\n${SKIP_MESSAGE} (the LDAP path of the read model's write-paths test is left out)\n`);

describeEachStore('the read model, after random writes through every write path', (store) => {
  let slapd: RunningSlapd | undefined;
  let config: Config;
  let app: FastifyInstance;
  let ldap: LdapSyncDeps | undefined;
  let source: StoreModelSource;
  let clock = Date.parse('2026-06-01T00:00:00Z');

  beforeAll(async () => {
    if (SLAPD) slapd = await startSlapd(COMPANY_LDIF, { sizeLimit: 100 });
    const env: Record<string, string> = { SCIM_TOKEN, SCIM_TEAM_ID: SCIM_TEAM, ...(slapd ? ldapEnv(slapd.url, { LDAP_TEAM_ID: LDAP_TEAM }) : {}) };
    config = makeTestConfig({ sync: readSyncConfig((name) => env[name]), adminApiKey: ADMIN_KEY });
    app = await buildTestApp(store(), config);
    if (slapd) ldap = { ...ldapSyncDeps(config, store(), composeDirectoryChanges(config, store()))!, now: () => (clock += 60_000) };
    source = new StoreModelSource(store());
  }, 60_000);
  afterAll(async () => {
    source?.close();
    await app?.close();
    await slapd?.stop();
  });

  const admin = (method: 'PUT' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_KEY}` }, ...(payload ? { payload } : {}) });

  /** What the rows hold now, so that most random writes are consistent ones (a refused write changes nothing, and is tested elsewhere). */
  async function rows() {
    const departments = await store().db.selectFrom('departments').select(['id', 'team_id']).orderBy('id').execute();
    const users = await store().db.selectFrom('users').select('id').orderBy('id').execute();
    const files = await store().db.selectFrom('files').select('id').orderBy('id').execute();
    return {
      teamOf: (departmentId: string) => departments.find((d) => d.id === departmentId)?.team_id,
      departmentsOf: (teamId: string) => departments.filter((d) => d.team_id === teamId && DEPARTMENTS.includes(d.id)).map((d) => d.id),
      users: users.map((u) => u.id).filter((id) => USERS.includes(id)),
      files: files.map((f) => f.id).filter((id) => FILES.includes(id)),
    };
  }

  /** A write through the management API: any answer but a fault (a refusal, such as a removed user's files, is a write that changed nothing). */
  async function throughApi(rng: Rng): Promise<string> {
    const now = await rows();
    const kind = rng.pick(['team', 'department', 'department', 'user', 'user', 'user', 'delete user', 'file', 'file', 'grant', 'grant', 'revoke', 'delete department']);
    const departmentId = rng.pick(DEPARTMENTS);
    const teamId = (kind === 'department' ? now.teamOf(departmentId) : undefined) ?? rng.pick(TEAMS);
    const userId = rng.pick(USERS);
    const fileId = rng.pick(now.files.length > 0 && kind !== 'file' ? now.files : FILES);
    const principal = rng.pick([`user:${rng.pick(USERS)}`, `department:${rng.pick(DEPARTMENTS)}`, `team:${teamId}`]);
    const parents = now.departmentsOf(teamId).filter((id) => id !== departmentId);
    const response = await {
      team: () => admin('PUT', `/api/teams/${teamId}`, { id: teamId, name: rng.pick(NAMES) }),
      department: () =>
        admin('PUT', `/api/departments/${departmentId}`, {
          id: departmentId,
          name: rng.pick(NAMES),
          teamId,
          parentId: parents.length === 0 || rng.next() < 0.3 ? null : rng.pick(parents),
        }),
      user: () =>
        admin('PUT', `/api/users/${userId}`, {
          id: userId,
          name: rng.pick(NAMES),
          teamId,
          departmentIds: rng.some(now.departmentsOf(teamId), 2),
          active: rng.next() < 0.8,
          ...(rng.next() < 0.5 ? { email: `${userId}@api.example.com` } : {}),
        }),
      'delete user': () => admin('DELETE', `/api/users/${userId}`),
      file: () =>
        admin('PUT', `/api/files/${fileId}`, {
          id: fileId,
          name: rng.pick(NAMES),
          type: 'document',
          creatorId: rng.pick(now.users.length > 0 ? now.users : USERS),
          teamId,
          createdAt: '2026-01-01T00:00:00Z',
          updatedAt: `2026-01-0${1 + Math.floor(rng.next() * 9)}T00:00:00Z`,
          sharing: [{ principal, role: rng.pick(ROLES) }],
        }),
      grant: () => admin('PUT', `/api/files/${fileId}/grants/${principal}`, { role: rng.pick(ROLES) }),
      revoke: () => admin('DELETE', `/api/files/${fileId}/grants/${principal}`),
      'delete department': () => admin('DELETE', `/api/departments/${departmentId}`),
    }[kind]!();
    expect(response.statusCode, `api ${kind}: ${response.body}`).toBeLessThan(500);
    return `api ${kind} ${response.statusCode}`;
  }

  /** A merge import of a few random records, consistent with the rows (departments stay in their teams). */
  async function throughImport(rng: Rng): Promise<string> {
    const now = await rows();
    const teamId = rng.pick(TEAMS);
    const departments = rng
      .some(DEPARTMENTS, 2)
      .filter((id) => (now.teamOf(id) ?? teamId) === teamId)
      .map((id) => ({ id, name: rng.pick(NAMES), teamId, parentId: null }));
    const known = [...new Set([...now.departmentsOf(teamId), ...departments.map((d) => d.id)])];
    const snapshot = {
      teams: [{ id: teamId, name: rng.pick(NAMES) }],
      departments,
      users: rng.some(USERS, 3).map((id) => ({ id, name: rng.pick(NAMES), teamId, departmentIds: rng.some(known, 2), active: rng.next() < 0.8 })),
    };
    const result = await importSnapshot(directoryChanges(store()), snapshot, { replace: false });
    return `import ${result.ok ? 'ok' : `refused ${JSON.stringify(result)}`}`;
  }

  /** SCIM as an identity provider: creates (the same userName twice is a conflict), deactivations, removals, groups. */
  async function throughScim(rng: Rng): Promise<string> {
    const scimUsers = await store().db.selectFrom('users').select('id').where('team_id', '=', SCIM_TEAM).orderBy('id').execute();
    const anyUser = scimUsers.length > 0 ? rng.pick(scimUsers).id : undefined;
    const kind = anyUser === undefined ? 'create' : rng.pick(['create', 'create', 'deactivate', 'reactivate', 'delete', 'group']);
    const userName = rng.pick(['ann', 'bob', 'zhang.san', 'alpha']);
    const answer = await {
      create: () =>
        scim(app, 'POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName,
          name: { formatted: rng.pick(NAMES) },
          emails: [{ value: `${userName}@scim.example.com`, primary: true }],
          active: true,
        }),
      deactivate: () => scim(app, 'PATCH', `/Users/${anyUser}`, patchOp({ op: 'replace', value: { active: false } })),
      reactivate: () => scim(app, 'PATCH', `/Users/${anyUser}`, patchOp({ op: 'replace', value: { active: true } })),
      delete: () => scim(app, 'DELETE', `/Users/${anyUser}`),
      group: () => scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: `${rng.pick(NAMES)} ${Math.floor(rng.next() * 1000)}`, members: [{ value: anyUser }] }),
    }[kind]!();
    expect(answer.status, `scim ${kind}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
    return `scim ${kind} ${answer.status}`;
  }

  /** A change in the LDAP directory (rename, disable, enable, move out of its group), then a full sync. */
  async function throughLdap(rng: Rng): Promise<string> {
    const client = await slapd!.admin();
    const uid = rng.pick(LDAP_USERS);
    const dn = (await client.search(PEOPLE_DN, { filter: `(uid=${uid})`, attributes: ['dn'] })).searchEntries[0]!.dn;
    const kind = rng.pick(['rename', 'disable', 'enable']);
    const change = {
      rename: () => new Change({ operation: 'replace', modification: new Attribute({ type: 'cn', values: [rng.pick(NAMES)] }) }),
      disable: () => new Change({ operation: 'replace', modification: new Attribute({ type: 'employeeType', values: ['disabled'] }) }),
      enable: () => new Change({ operation: 'replace', modification: new Attribute({ type: 'employeeType', values: ['staff'] }) }),
    }[kind]!();
    await client.modify(dn, change);
    await client.unbind();
    const report = await runLdapSync(ldap!, { mode: 'full' });
    return `ldap ${kind} ${uid} (${report.status})`;
  }

  /** Each user's own app answers `GET /users/current/info` as the rows say: active users by name and team, others refused. */
  async function expectAppFollowsRows(step: string): Promise<void> {
    const users = await store().db.selectFrom('users').select(['id', 'name', 'team_id', 'active']).orderBy('id').execute();
    for (const user of users) {
      const response = await app.inject({ method: 'GET', url: '/users/current/info', headers: asUser(user.id, config) });
      if (Number(user.active) === 1) {
        expect(response.statusCode, `${step}: ${user.id} ${response.body}`).toBe(200);
        expect(response.json(), `${step}: ${user.id}`).toMatchObject({ id: user.id, name: user.name, ...(user.team_id === null ? {} : { teamGuid: user.team_id }) });
      } else {
        expect(response.statusCode, `${step}: inactive ${user.id}`).toBe(401);
      }
    }
  }

  it('every read equals the reference after each write, whichever path wrote it', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    const paths: Array<[string, (rng: Rng) => Promise<string>]> = [
      ['api', throughApi],
      ['import', throughImport],
      ['scim', throughScim],
      ['writer', (rng) => randomWrite(store() as OpenDatabase, rng)],
      ...(ldap ? [['ldap', throughLdap] as [string, (rng: Rng) => Promise<string>]] : []),
    ];
    const taken = new Set<string>();
    const rng = random(21);
    for (let step = 0; step < 60; step += 1) {
      const [name, write] = rng.pick(paths);
      taken.add(name);
      const at = `step ${step}: ${await write(rng)}`;
      await expectModelEqualsReference(store(), directory, at, 'every row');
      if (step % 5 === 4) {
        // Searches for a few viewers of the rows (each viewer compares some hundreds of answers).
        const rows = await idsOfRows(store());
        const universe = { ...rows, USERS: rng.some(rows.USERS, 4) };
        await expectSearchEqualsReference(store(), directory, at, ['', ...rng.some(KEYWORDS, 3)], universe);
        await expectAppFollowsRows(at);
      }
    }
    // Every path wrote at least once (the seed is fixed: a change of the paths that drops one shows here).
    expect([...taken].sort()).toEqual(paths.map(([name]) => name).sort());
    // The writes reached the model: users of SCIM, of LDAP and of the API are all in it.
    const teams = new Set([...source.model.users.values()].map((user) => user.teamId));
    expect(teams.has(SCIM_TEAM)).toBe(true);
    if (ldap) expect(teams.has(LDAP_TEAM)).toBe(true);
  }, 600_000);
});
