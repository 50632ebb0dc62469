import type { FastifyInstance } from 'fastify';
import { Attribute, Change, type Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import { runLdapSync, type LdapSyncDeps } from '../../src/sync/ldap/ldap-sync.js';
import { ldapSyncDeps } from '../../src/sync/sync-deps.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { callAs, configWithSync, departmentPaths } from './sync-helpers.js';
import { AD_ADMIN_DN, AD_ADMIN_PASSWORD, AD_BASE_DN, AD_SKIP_MESSAGE, AD_SKIP_REASON, startSambaAd, type RunningAd } from './samba-ad.js';

const STAFF = `OU=Staff,${AD_BASE_DN}`;
const RD = `OU=研发部,${STAFF}`;
const FE = `OU=前端组,${RD}`;
const SALES = `OU=销售部,${STAFF}`;
const GROUPS = `OU=Groups,${AD_BASE_DN}`;
const LONG_NAME = 'L'.repeat(256);
/** userAccountControl: a normal account that needs no password (created over LDAP without one), and the same disabled. */
const ENABLED = '544';
const DISABLED = '546';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The AD preset as an administrator sets it: users and groups from the whole domain, OUs below OU=Staff. */
function adEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LDAP_PRESET: 'ad',
    LDAP_URL: url,
    LDAP_BIND_DN: AD_ADMIN_DN,
    LDAP_BIND_PASSWORD: AD_ADMIN_PASSWORD,
    LDAP_BASE_DN: AD_BASE_DN,
    LDAP_DEPARTMENTS: 'ou,groups',
    LDAP_DEPARTMENT_BASE_DN: STAFF,
    LDAP_TEAM_ID: 'corp',
    LDAP_TEAM_NAME: 'Corp',
    LDAP_PAGE_SIZE: '20',
    ...extra,
  };
}

/** Loads the company: OUs, people (two made with samba-tool), groups nested and as a primary group, and two entries no rule lets in. */
async function loadCompany(ad: RunningAd, ldap: Client): Promise<void> {
  for (const dn of [STAFF, RD, FE, SALES, GROUPS]) await ldap.add(dn, { objectClass: 'organizationalUnit' });
  await ad.tool(
    'user',
    'create',
    'ada',
    'Passw0rd-1234!',
    '--given-name=Ada',
    '--surname=Lovelace',
    `--userou=${FE.replace(`,${AD_BASE_DN}`, '')}`,
    '--mail-address=ada@corp.example.com',
  );
  await ad.tool('user', 'create', 'grace', 'Passw0rd-1234!', '--given-name=Grace', '--surname=Hopper', `--userou=${SALES.replace(`,${AD_BASE_DN}`, '')}`);
  const person = (cn: string, parent: string, account: string, displayName: string, uac = ENABLED) =>
    ldap.add(`CN=${cn},${parent}`, { objectClass: 'user', sAMAccountName: account, displayName, mail: `${account.slice(0, 40)}@corp.example.com`, userAccountControl: uac });
  await person('Li Lei', FE, 'lilei', '李雷');
  await person('Han Meimei', RD, 'hanmeimei', '韩梅梅');
  await person('Wang Wu', SALES, 'wangwu', '王五');
  await person('Zhao Liu', SALES, 'zhaoliu', '赵六', DISABLED);
  // What AD accepts and no rule here lets in: a NUL in displayName, a 256-character sAMAccountName.
  await person('Null Byte', SALES, 'nulbyte', 'Null\u0000Byte');
  await person('Long Name', SALES, LONG_NAME, 'Long');
  for (const name of ['Sales Team', '项目组', '凤凰项目']) await ldap.add(`CN=${name},${GROUPS}`, { objectClass: 'group', sAMAccountName: name });
  await ldap.modify(`CN=项目组,${GROUPS}`, new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [`CN=Li Lei,${FE}`, `CN=凤凰项目,${GROUPS}`] }) }));
  await ad.tool('group', 'addmembers', '凤凰项目', 'ada');
  await ad.tool('group', 'addmembers', 'Sales Team', 'wangwu,grace');
  // Sales Team becomes Wang Wu's primary group: AD then keeps that membership in primaryGroupID, not in member.
  const [team] = (await ldap.search(`CN=Sales Team,${GROUPS}`, { scope: 'base', attributes: ['objectSid'], explicitBufferAttributes: ['objectSid'] })).searchEntries;
  const sid = team!.objectSid as Buffer;
  await ldap.modify(
    `CN=Wang Wu,${SALES}`,
    new Change({ operation: 'replace', modification: new Attribute({ type: 'primaryGroupID', values: [String(sid.readUInt32LE(sid.length - 4))] }) }),
  );
}

if (AD_SKIP_REASON !== undefined) {
  console.log(`\n${AD_SKIP_MESSAGE}\n`);
  describe.skip('LDAP sync with LDAP_PRESET=ad against a Samba domain controller', () => {
    it('needs samba', () => undefined);
  });
} else {
  let ad: RunningAd;
  let ldap: Client;
  // One domain controller for the file, shared by every store's suite (provisioning: about 15 s on an idle
  // machine, once per machine; each run starts a copy).
  beforeAll(async () => {
    ad = await startSambaAd();
    ldap = await ad.admin();
    await loadCompany(ad, ldap);
    console.log(`Samba AD domain controller started (${ad.provisionMs > 0 ? `provisioned in ${ad.provisionMs} ms` : 'a copy of a domain provisioned before'})`);
  }, 240_000);
  afterAll(async () => {
    await ad?.stop();
  });

  describeEachStore('LDAP sync with LDAP_PRESET=ad against a Samba domain controller', (store) => {
    let config: Config;
    let deps: LdapSyncDeps;
    let app: FastifyInstance;
    const depsFor = (env: Record<string, string>) => {
      const other = configWithSync(adEnv(ad.url, env));
      return ldapSyncDeps(other, store(), composeDirectoryChanges(other, store()))!;
    };

    beforeAll(async () => {
      config = configWithSync(adEnv(ad.url));
      deps = ldapSyncDeps(config, store(), composeDirectoryChanges(config, store()))!;
      app = await buildTestApp(store(), config);
    });
    afterAll(async () => {
      await app?.close();
    });

    it('takes people, OUs and groups; leaves out system accounts and built-in groups; skips what no rule lets in, by DN', async () => {
      const report = await runLdapSync(deps, { mode: 'full' });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.diff!.created.users.sort()).toEqual(['ada', 'grace', 'hanmeimei', 'lilei', 'wangwu', 'zhaoliu']);
      expect(report.diff!.created.departments).toHaveLength(6);
      for (const id of report.diff!.created.departments) expect(id).toMatch(GUID);
      expect(report.skipped.sort((a, b) => (a.dn < b.dn ? -1 : 1))).toEqual([
        { dn: `CN=Long Name,${SALES}`, reason: `user "${LONG_NAME}": id must have at most 255 characters` },
        { dn: `CN=Null Byte,${SALES}`, reason: 'user "nulbyte": name must be well-formed Unicode without NUL (U+0000)' },
      ]);
      const [run] = await deps.runs.list({ source: 'ldap', limit: 1 });
      expect(run!.counts).toEqual({ created: 1 + 6 + 6, updated: 0, removed: 0, deactivated: 0, reactivated: 0, skipped: 2 });

      for (const system of ['Administrator', 'Guest', 'krbtgt']) expect((await callAs(app, 'lilei', `/users/${system}`)).status).toBe(404);
      const root = await callAs(app, 'lilei', '/departments/TEAM_corp/children');
      expect(root.body.map((department: { name: string }) => department.name).sort()).toEqual(['Sales Team', '研发部', '销售部', '项目组'].sort());
      expect((await callAs(app, 'lilei', '/users/ada')).body).toMatchObject({ name: 'Ada Lovelace', email: 'ada@corp.example.com' });
      expect(await departmentPaths(app, 'lilei', 'lilei')).toEqual([['研发部', '前端组'], ['项目组']]);
      expect(await departmentPaths(app, 'lilei', 'ada')).toEqual([
        ['研发部', '前端组'],
        ['项目组', '凤凰项目'],
      ]);
      expect(await departmentPaths(app, 'lilei', 'grace')).toEqual([['Sales Team'], ['销售部']]);
      // Wang Wu is in Sales Team through primaryGroupID alone: its member attribute does not name him.
      const [team] = (await ldap.search(`CN=Sales Team,${GROUPS}`, { scope: 'base', attributes: ['member'] })).searchEntries;
      expect([team!.member].flat()).not.toContain(`CN=Wang Wu,${SALES}`);
      expect(await departmentPaths(app, 'lilei', 'wangwu')).toEqual([['Sales Team'], ['销售部']]);
      // A disabled account is there, deactivated.
      expect((await callAs(app, 'zhaoliu', '/users/current/info')).body.error.code).toBe('token_user_inactive');
    });

    it('an account disabled with samba-tool is locked out at the next run, the skipped entries still there; enabled, it is back', async () => {
      await ad.tool('user', 'disable', 'ada');
      const disabled = await runLdapSync(deps, { mode: 'full' });
      expect(disabled.status, disabled.errors.join('; ')).toBe('ok');
      expect(disabled.diff!.deactivatedUsers).toEqual(['ada']);
      expect(disabled.skipped).toHaveLength(2);
      expect((await callAs(app, 'ada', '/users/current/info')).body.error.code).toBe('token_user_inactive');

      await ad.tool('user', 'enable', 'ada');
      const enabled = await runLdapSync(deps, { mode: 'full' });
      expect(enabled.diff!.reactivatedUsers).toEqual(['ada']);
      expect((await callAs(app, 'ada', '/users/current/info')).status).toBe(200);
    });

    it('LDAP_SKIP_SYSTEM_OBJECTS=false would take the system accounts and the built-in groups (a dry run)', async () => {
      const report = await runLdapSync(depsFor({ LDAP_SKIP_SYSTEM_OBJECTS: 'false' }), { mode: 'full', dryRun: true });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.diff!.created.users).toEqual(expect.arrayContaining(['Administrator', 'Guest', 'krbtgt']));
      const names = (report.desired!.departments as Array<{ name: string }>).map((department) => department.name);
      expect(names).toEqual(expect.arrayContaining(['Domain Users', 'Domain Admins', 'Administrators', 'Domain Controllers']));
      // Every user's primary group is Domain Users: through primaryGroupID, it has them all.
      const domainUsers = (report.desired!.departments as Array<{ id: string; name: string }>).find((department) => department.name === 'Domain Users')!.id;
      const members = (report.desired!.users as Array<{ id: string; departmentIds: string[] }>).filter((user) => user.departmentIds.includes(domainUsers)).map((user) => user.id);
      expect(members).toEqual(expect.arrayContaining(['ada', 'lilei', 'hanmeimei', 'zhaoliu', 'Administrator']));
    });
  });
}
