import type { FastifyInstance } from 'fastify';
import { Attribute, Change } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import { runLdapSync, type LdapSyncDeps } from '../../src/sync/ldap/ldap-sync.js';
import { ldapSyncDeps } from '../../src/sync/sync-deps.js';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { callAs, configWithSync, departmentPaths, documentBy, ldapEnv, PEOPLE_DN } from './sync-helpers.js';
import { BASE_DN, READER_DN, SKIP_MESSAGE, SLAPD, startSlapd, type RunningSlapd } from './slapd.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const RD = `ou=研发部,${PEOPLE_DN}`;
const SALES = `ou=销售部,${PEOPLE_DN}`;
const SOLO = `ou=solo,${BASE_DN}`;
const GROUPS = `ou=groups,${BASE_DN}`;
const LONG_UID = 'x'.repeat(256);

const person = (uid: string, parent: string, cn: string) => `dn: uid=${uid},${parent}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${cn}\nsn: ${cn}\nmail: ${uid}@example.com\n`;
const unit = (dn: string) => `dn: ${dn}\nobjectClass: organizationalUnit\nou: ${dn.slice(3, dn.indexOf(','))}\n`;

/** A small company: two departments, five people; groups A and B that contain each other; and a one-person team under ou=solo. */
const LDIF = [
  `dn: ${BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n`,
  `dn: ${READER_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: reader-secret-0123\n`,
  unit(PEOPLE_DN),
  unit(RD),
  unit(SALES),
  person('alice', RD, 'Alice'),
  person('bob', RD, 'Bob'),
  person('carol', SALES, 'Carol'),
  person('dave', SALES, 'Dave'),
  person('frank', SALES, 'Frank'),
  unit(GROUPS),
  `dn: cn=A,${GROUPS}\nobjectClass: groupOfNames\ncn: A\nmember: cn=B,${GROUPS}\nmember: uid=alice,${RD}\n`,
  `dn: cn=B,${GROUPS}\nobjectClass: groupOfNames\ncn: B\nmember: cn=A,${GROUPS}\nmember: uid=bob,${RD}\n`,
  unit(SOLO),
  person('only', SOLO, 'Only One'),
].join('\n');

const replace = (type: string, values: string[]) => new Change({ operation: 'replace', modification: new Attribute({ type, values }) });

if (!SLAPD) {
  console.log(`\n${SKIP_MESSAGE}\n`);
  describe.skip('LDAP sync with entries no rule lets in, against slapd', () => {
    it('needs slapd', () => undefined);
  });
} else {
  describeEachStore('LDAP sync with entries no rule lets in, against a real slapd', (store) => {
    let slapd: RunningSlapd;
    let config: Config;
    let deps: LdapSyncDeps;
    let app: FastifyInstance;

    const admin = async (url: string, target = app) => {
      const response = await target.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_API_KEY}` } });
      return { status: response.statusCode, body: response.json() };
    };
    const depsFor = (env: Record<string, string>) => {
      const other = configWithSync(ldapEnv(slapd.url, env));
      return ldapSyncDeps(other, store(), composeDirectoryChanges(other, store()))!;
    };

    beforeAll(async () => {
      slapd = await startSlapd(LDIF);
      // Departments from OUs (named by their description when they have one) and groups.
      config = { ...configWithSync(ldapEnv(slapd.url, { LDAP_DEPARTMENT_NAME_ATTRIBUTE: 'description' })), adminApiKey: ADMIN_API_KEY };
      deps = ldapSyncDeps(config, store(), composeDirectoryChanges(config, store()))!;
      app = await buildTestApp(store(), config);
    });
    afterAll(async () => {
      await app?.close();
      await slapd?.stop();
    });

    it('a nesting loop is cut and said, and counts no entry as skipped', async () => {
      const report = await runLdapSync(deps, { mode: 'full' });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.skipped).toEqual([]);
      expect(report.detail).toMatch(/^read in full; department [0-9a-f-]+ \((A|B)\) made first-level: its groups nest in a loop$/);
      const [run] = (await admin('/api/sync/runs?source=ldap&limit=1')).body.items;
      expect(run).toMatchObject({ status: 'ok', counts: { created: 10, skipped: 0 }, skipped: [] });
      expect(run.detail).not.toMatch(/left out|skipped/);
    });

    it('entries no rule lets in are skipped and named by DN and reason; every other change is applied, leavers included', async () => {
      await upsertFiles(store().db, [documentBy('carol', 'carol-doc', 'corp')]);
      const ldap = await slapd.admin();
      // Good changes: a hire, a rename, a leaver disabled, a leaver deleted, one who created files deleted.
      await ldap.add(`uid=erin,${SALES}`, { objectClass: 'inetOrgPerson', uid: 'erin', cn: 'Erin', sn: 'Erin' });
      await ldap.modify(`uid=alice,${RD}`, replace('cn', ['Alice Liddell']));
      await ldap.modify(`uid=bob,${RD}`, replace('employeeType', ['disabled']));
      await ldap.del(`uid=frank,${SALES}`);
      await ldap.del(`uid=carol,${SALES}`);
      // Poison: a name with NUL, a 256-character id, and a known person whose new name has NUL while LDAP disables him.
      await ldap.add(`uid=nul,${SALES}`, { objectClass: 'inetOrgPerson', uid: 'nul', cn: 'Null\u0000Byte', sn: 'x' });
      await ldap.add(`cn=long-id,${SALES}`, { objectClass: 'inetOrgPerson', uid: LONG_UID, cn: 'long-id', sn: 'x' });
      await ldap.modify(`uid=dave,${SALES}`, replace('cn', ['Dave\u0000']));
      await ldap.modify(`uid=dave,${SALES}`, replace('employeeType', ['disabled']));
      // A known department whose new name has NUL: it stays as it was, with its people (erin joins it).
      await ldap.modify(SALES, replace('description', ['Sales\u0000']));
      // A new department whose name has NUL, with a new hire in it: she goes to the department above.
      await ldap.add(`ou=poison,${RD}`, { objectClass: 'organizationalUnit', ou: 'poison', description: 'Poison\u0000' });
      await ldap.add(`uid=gina,ou=poison,${RD}`, { objectClass: 'inetOrgPerson', uid: 'gina', cn: 'Gina', sn: 'Gina' });

      const dry = await runLdapSync(deps, { mode: 'full', dryRun: true });
      const real = await runLdapSync(deps, { mode: 'full' });
      expect(real.status, real.errors.join('; ')).toBe('ok');
      const skipped = [
        { dn: `uid=nul,${SALES}`, reason: 'user "nul": name must be well-formed Unicode without NUL (U+0000)' },
        { dn: `cn=long-id,${SALES}`, reason: `user "${LONG_UID}": id must have at most 255 characters` },
        { dn: `uid=dave,${SALES}`, reason: 'user "dave": name must be well-formed Unicode without NUL (U+0000)' },
        { dn: `ou=poison,${RD}`, reason: expect.stringMatching(/^department "[0-9a-f-]+": name must be well-formed Unicode without NUL \(U\+0000\)$/) },
        { dn: SALES, reason: expect.stringMatching(/^department "[0-9a-f-]+": name must be well-formed Unicode without NUL \(U\+0000\)$/) },
      ];
      expect(sortByDn(real.skipped)).toEqual(sortByDn(skipped));
      expect(real.detail).toBe('read in full; 5 entries skipped; ' + real.notes.join('; '));

      // Everyone else as LDAP says: the hires, the rename; the leavers are locked out.
      expect((await callAs(app, 'erin', '/users/current/info')).status).toBe(200);
      expect((await callAs(app, 'alice', '/users/current/info')).body.name).toBe('Alice Liddell');
      expect(await departmentPaths(app, 'alice', 'gina')).toEqual([['研发部']]);
      expect(await departmentPaths(app, 'alice', 'erin')).toEqual([['销售部']]);
      expect((await callAs(app, 'bob', '/users/current/info')).body.error.code).toBe('token_user_inactive');
      expect((await callAs(app, 'frank', '/users/current/info')).body.error.code).toBe('token_user_unknown');
      expect((await callAs(app, 'carol', '/users/current/info')).body.error.code).toBe('token_user_inactive');
      // The skipped leaver is locked out too, under the name he had.
      expect((await callAs(app, 'dave', '/users/current/info')).body.error.code).toBe('token_user_inactive');
      expect((await callAs(app, 'alice', '/users/dave')).body.name).toBe('Dave');
      expect((await callAs(app, 'nul', '/users/current/info')).body.error.code).toBe('token_user_unknown');

      // Counts say what happened, each person once; the dry run said the same.
      const counts = { created: 2, updated: 4, removed: 1, deactivated: 3, reactivated: 0, skipped: 5 };
      const runs = (await admin('/api/sync/runs?source=ldap&limit=2')).body.items;
      expect(runs[0]).toMatchObject({ id: real.runId, status: 'ok', counts, changes: { users: { created: ['erin', 'gina'], removed: ['frank'] } } });
      expect(runs[0].changes.users.deactivated.sort()).toEqual(['bob', 'carol', 'dave']);
      expect(sortByDn(runs[0].skipped)).toEqual(sortByDn(skipped));
      expect(runs[1]).toMatchObject({ id: dry.runId, dryRun: true, status: 'ok', counts });

      // Readiness stays 200 and says it; the metrics count the skipped entries.
      const ready = await admin('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.details.ldapSync).toMatch(new RegExp(`^last good sync \\d+s ago \\(run ${real.runId}\\); it skipped 5 entries \\(GET /api/sync/runs lists them\\)$`));
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain('collab_host_sync_last_run_skipped_entries{source="ldap"} 5');
      expect(metrics).toContain('collab_host_sync_last_run_failed{source="ldap"} 0');
      expect(metrics).toMatch(/collab_host_sync_last_success_age_seconds\{source="ldap"\} \d/);
    });

    it('a fixed entry is taken at the next run', async () => {
      const ldap = await slapd.admin();
      await ldap.modify(`uid=nul,${SALES}`, replace('cn', ['Null Byte']));
      const report = await runLdapSync(deps, { mode: 'full' });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.diff!.created.users).toEqual(['nul']);
      expect(report.skipped.map((entry) => entry.dn).sort()).toEqual([`ou=poison,${RD}`, SALES, `cn=long-id,${SALES}`, `uid=dave,${SALES}`].sort());
    });

    it('a sync that fails shows in readiness (still 200) and in the metrics, with the age of the last good sync', async () => {
      const failed = await runLdapSync({ ...deps, config: configWithSync(ldapEnv(slapd.url, { LDAP_BIND_PASSWORD: 'wrong-password' })).sync.ldap! }, { mode: 'full' });
      expect(failed.status).toBe('failed');
      // A new app: readiness and metrics read the runs at most every 5 s.
      const fresh = await buildTestApp(store(), config);
      try {
        const ready = await admin('/readyz', fresh);
        expect(ready.status).toBe(200);
        expect(ready.body.details.ldapSync).toMatch(
          new RegExp(`^last good sync \\d+s ago; last run \\(${failed.runId}\\) \\d+s ago failed: LDAP bind as ${READER_DN} at ldap://127\\.0\\.0\\.1:\\d+ failed: `),
        );
        const metrics = (await fresh.inject({ method: 'GET', url: '/metrics' })).body;
        expect(metrics).toContain('collab_host_sync_last_run_failed{source="ldap"} 1');
        expect(metrics).toMatch(/collab_host_sync_last_success_timestamp_seconds\{source="ldap"\} \d{10}/);
      } finally {
        await fresh.close();
      }
    });

    it('an answer without any user entry (a wrong filter) fails the run and changes nothing', async () => {
      const wrong = depsFor({ LDAP_USER_FILTER: '(objectClass=posixAccount)', LDAP_DEPARTMENT_NAME_ATTRIBUTE: 'description' });
      const report = await runLdapSync(wrong, { mode: 'full' });
      expect(report.status).toBe('failed');
      expect(report.errors).toEqual([
        `LDAP answered no user entries below ${PEOPLE_DN} matching (objectClass=posixAccount), while team corp has 4 active users: nothing was changed (check LDAP_USER_BASE_DN and LDAP_USER_FILTER)`,
      ]);
      expect((await callAs(app, 'alice', '/users/current/info')).status).toBe(200);
    });

    it("the team's last active user, disabled in LDAP, is deactivated; deleted, is removed (issue 23)", async () => {
      const solo = depsFor({ LDAP_USER_BASE_DN: SOLO, LDAP_DEPARTMENT_BASE_DN: SOLO, LDAP_DEPARTMENTS: 'ou', LDAP_TEAM_ID: 'solo', LDAP_TEAM_NAME: 'Solo' });
      expect((await runLdapSync(solo, { mode: 'full' })).status).toBe('ok');
      expect((await callAs(app, 'only', '/users/current/info')).status).toBe(200);
      const ldap = await slapd.admin();

      await ldap.modify(`uid=only,${SOLO}`, replace('employeeType', ['disabled']));
      const disabled = await runLdapSync(solo, { mode: 'full' });
      expect(disabled.status, disabled.errors.join('; ')).toBe('ok');
      expect(disabled.diff!.deactivatedUsers).toEqual(['only']);
      expect((await callAs(app, 'only', '/users/current/info')).body.error.code).toBe('token_user_inactive');

      await ldap.modify(`uid=only,${SOLO}`, new Change({ operation: 'delete', modification: new Attribute({ type: 'employeeType', values: [] }) }));
      expect((await runLdapSync(solo, { mode: 'full' })).diff!.reactivatedUsers).toEqual(['only']);
      // The last active person leaves while a disabled colleague stays listed: removed at once.
      await ldap.add(`uid=former,${SOLO}`, { objectClass: 'inetOrgPerson', uid: 'former', cn: 'Former', sn: 'Former', employeeType: 'disabled' });
      await ldap.del(`uid=only,${SOLO}`);
      const deleted = await runLdapSync(solo, { mode: 'full' });
      expect(deleted.status, deleted.errors.join('; ')).toBe('ok');
      expect(deleted.diff!.removed.users).toEqual(['only']);
      expect((await callAs(app, 'only', '/users/current/info')).body.error.code).toBe('token_user_unknown');
    });
  });
}

function sortByDn<T extends { dn: string }>(entries: T[]): T[] {
  return [...entries].sort((a, b) => (a.dn < b.dn ? -1 : 1));
}
