import type { FastifyInstance } from 'fastify';
import { Attribute, Change } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import { runLdapSync, type LdapSyncDeps } from '../../src/sync/ldap/ldap-sync.js';
import { ldapSyncDeps } from '../../src/sync/sync-deps.js';
import { upsertFiles, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { notifyLookups } from '../../src/store/notify/notify-lookups.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { search, ids } from '../search/search-http.js';
import { callAs, COMPANY_LDIF, documentBy, configWithSync, departmentPaths, ldapEnv, PEOPLE_DN } from './sync-helpers.js';
import { SKIP_MESSAGE, SLAPD, startSlapd, type RunningSlapd } from './slapd.js';

const FE = `ou=前端组,ou=研发部,${PEOPLE_DN}`;
const BE = `ou=后端组,ou=研发部,${PEOPLE_DN}`;
const HR = `ou=人事部,${PEOPLE_DN}`;

if (!SLAPD) {
  console.log(`\n${SKIP_MESSAGE}\n`);
  describe.skip('LDAP sync against slapd', () => {
    it('needs slapd', () => undefined);
  });
} else {
  describeEachStore('LDAP sync against a real slapd', (store) => {
    let slapd: RunningSlapd;
    let config: Config;
    let deps: LdapSyncDeps;
    let app: FastifyInstance;
    let clock = Date.now();

    beforeAll(async () => {
      slapd = await startSlapd(COMPANY_LDIF, { sizeLimit: 20 });
      config = configWithSync(ldapEnv(slapd.url));
      deps = { ...ldapSyncDeps(config, store(), composeDirectoryChanges(config, store()))!, now: () => clock };
      // Before LDAP keeps team corp, it held two users of a snapshot: one created a file, one did not.
      await upsertTeams(store().db, [{ id: 'corp', name: 'Corp (old name)' }]);
      const old = (id: string) => ({ id, name: id, email: null, avatar: null, teamId: 'corp', watermark: null, departmentIds: [] });
      await upsertUsers(store().db, [old('former.author'), old('former.reader')]);
      await upsertFiles(store().db, [documentBy('former.author', 'memo', 'corp')]);
      app = await buildTestApp(store(), config);
    });
    afterAll(async () => {
      await app?.close();
      await slapd?.stop();
    });

    it('a dry run computes the change, records the run, and writes nothing', async () => {
      const report = await runLdapSync(deps, { mode: 'full', dryRun: true });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.dryRun).toBe(true);
      expect(report.diff!.created.users).toHaveLength(35);
      expect(report.diff!.removed.users).toEqual(['former.reader']);
      expect(report.diff!.deactivatedUsers.sort()).toEqual(['former.author', 'former.reader']);
      const [run] = await deps.runs.list({ source: 'ldap', limit: 1 });
      expect(run).toMatchObject({ dryRun: true, counts: { created: 35 + 12, updated: 2, removed: 1, deactivated: 1, skipped: 0 } });
      expect((await callAs(app, 'lilei', '/users/current/info')).status).toBe(401);
      expect((await callAs(app, 'former.reader', '/users/current/info')).status).toBe(200);
    });

    it('a full sync brings every person, nested OUs and nested groups, read in pages past the server size limit', async () => {
      const report = await runLdapSync(deps, { mode: 'full' });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.skipped).toEqual([]);
      expect(report.notes).toEqual([]);

      const me = await callAs(app, 'lilei', '/users/current/info');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: 'lilei', name: '李雷', email: 'lilei@example.com', avatar: 'https://avatars.example.com/lilei.png' });
      expect((await callAs(app, 'lilei', '/users/current/team')).body).toMatchObject({ id: 'corp', name: 'Example 公司' });
      // What notices are routed and written by: the first tag of preferredLanguage, the IM ids mapped.
      const people = await notifyLookups.people(store().db, ['lilei', 'hanmeimei']);
      expect(people.get('lilei')).toMatchObject({ locale: 'en', im: { wecom: 'LiLei', dingtalk: 'manager4021' } });
      expect(people.get('hanmeimei')).toMatchObject({ locale: null, im: {} }); // `*` is no language tag
      const members = await callAs(app, 'lilei', '/teams/corp/members?pagination=false');
      // 35 people in LDAP, one of them disabled; deactivated users (that one, and the snapshot user kept
      // for his file) are left out of member lists.
      const memberIds = members.body.map((user: { id: string }) => user.id);
      expect(memberIds).toContain('maxwell');
      expect(memberIds).not.toContain('lingyun');
      expect(memberIds).not.toContain('former.author');
      expect(memberIds).toHaveLength(34);

      expect(await departmentPaths(app, 'lilei', 'lilei')).toEqual([
        ['研发部', '前端组'],
        ['项目组', '凤凰项目'],
      ]);
      expect(await departmentPaths(app, 'lilei', 'zhaomin')).toEqual([
        ['研发部', '后端组', '数据库小组'],
        ['项目组', '凤凰项目'],
      ]);
      expect(await departmentPaths(app, 'lilei', 'maxwell')).toEqual([]); // directly under ou=people
      expect(await departmentPaths(app, 'lilei', 'songjia')).toEqual([['Managers'], ['销售部']]);

      const root = await callAs(app, 'lilei', '/departments/TEAM_corp/children');
      expect(root.body.map((department: { name: string }) => department.name).sort()).toEqual(['Managers', 'Marketing', '人事部', '研发部', '销售部', '项目组'].sort());
      const rd = root.body.find((department: { name: string }) => department.name === '研发部');
      expect(rd.allMemberCount).toBe(13);

      // The snapshot user without files is gone; the author of a file is kept, deactivated.
      expect((await callAs(app, 'former.reader', '/users/current/info')).body.error.code).toBe('token_user_unknown');
      expect((await callAs(app, 'former.author', '/users/current/info')).body.error.code).toBe('token_user_inactive');
      expect((await callAs(app, 'lilei', '/users/former.author')).body).toMatchObject({ id: 'former.author' });
    });

    it('pinyin search finds the new Chinese names', async () => {
      const found = await search(app, 'lilei', { type: 'team_member', keyword: 'zzr' });
      expect(ids(found.teamMembers)).toContain('zhouzhiruo');
      const byFull = await search(app, 'lilei', { type: 'team_member', keyword: 'zhangwuji' });
      expect(ids(byFull.teamMembers)).toEqual(['zhangwuji']);
      const departments = await search(app, 'lilei', { type: 'department', keyword: 'fenghuang' });
      expect(departments.department.results.map((department) => department.name)).toEqual(['凤凰项目']);
    });

    it('an account disabled in LDAP is deactivated: its token is refused', async () => {
      expect((await callAs(app, 'lingyun', '/users/current/info')).body.error.code).toBe('token_user_inactive');
    });

    it('a second run with nothing changed changes nothing', async () => {
      const report = await runLdapSync(deps, { mode: 'full' });
      expect(report.status).toBe('unchanged');
    });

    it('scheduled runs skip reading when no entry changed, and read when one did', async () => {
      const idle = await runLdapSync(deps, { mode: 'scheduled' });
      expect(idle.status).toBe('unchanged');
      expect(idle.detail).toMatch(/^no entry changed since entryCSN /);

      const admin = await slapd.admin();
      await admin.modify(`uid=hanmeimei,${FE}`, new Change({ operation: 'replace', modification: new Attribute({ type: 'cn', values: ['韩梅梅 (Meimei Han)'] }) }));
      const busy = await runLdapSync(deps, { mode: 'scheduled' });
      expect(busy.status, busy.errors.join('; ')).toBe('ok');
      expect(busy.detail).toMatch(/^1 entry changed since entryCSN .*; read in full$/);
      expect(busy.diff!.updated.users).toEqual(['hanmeimei']);
      expect((await callAs(app, 'lilei', '/users/hanmeimei')).body.name).toBe('韩梅梅 (Meimei Han)');

      // Past LDAP_FULL_SYNC_INTERVAL a scheduled run reads in full even when nothing changed.
      clock += 2 * 3600_000;
      const full = await runLdapSync(deps, { mode: 'scheduled' });
      expect(full.status).toBe('unchanged');
      expect(full.detail).toBe('read in full');
    });

    it('a user removed in LDAP is refused within one sync; one who created files is deactivated and keeps them', async () => {
      expect((await callAs(app, 'zhangsan', '/users/current/info')).status).toBe(200);
      await upsertFiles(store().db, [documentBy('lisi', 'lisi-doc', 'corp')]);
      const admin = await slapd.admin();
      await admin.del(`uid=zhangsan,${BE}`);
      await admin.del(`uid=lisi,${BE}`);
      const report = await runLdapSync(deps, { mode: 'full' });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.diff!.removed.users).toEqual(['zhangsan']);
      expect(report.diff!.deactivatedUsers.sort()).toEqual(['lisi', 'zhangsan']);
      // The run reports each leaver once: zhangsan removed, lisi deactivated.
      const [run] = await deps.runs.list({ source: 'ldap', limit: 1 });
      expect(run).toMatchObject({ id: report.runId, counts: { removed: 1, deactivated: 1 }, changes: { users: { removed: ['zhangsan'], deactivated: ['lisi'] } } });

      expect((await callAs(app, 'zhangsan', '/users/current/info')).body.error.code).toBe('token_user_unknown');
      expect((await callAs(app, 'lisi', '/users/current/info')).body.error.code).toBe('token_user_inactive');
      expect((await callAs(app, 'lilei', '/users/lisi')).body).toMatchObject({ id: 'lisi', name: '李四' });
      // Gone from the department's members and from search.
      expect(ids((await search(app, 'lilei', { type: 'team_member', keyword: 'zhangsan' })).teamMembers)).toEqual([]);
      const backend = await callAs(app, 'lilei', '/users/bob.lee/department-paths');
      const backendId = (backend.body as Array<Array<{ id: string; name: string }>>)[0]!.at(-1)!.id;
      const list = await callAs(app, 'lilei', `/departments/${backendId}/members?pageSize=100`);
      expect(list.body.members.map((user: { id: string }) => user.id)).not.toContain('zhangsan');
    });

    it('an account re-enabled in LDAP is re-activated; moves and renames follow, department ids stay', async () => {
      const admin = await slapd.admin();
      const before = await departmentPaths(app, 'lilei', 'guojing');
      expect(before).toEqual([['人事部']]);
      const hrId = ((await callAs(app, 'lilei', '/users/guojing/department-paths')).body as Array<Array<{ id: string }>>)[0]![0]!.id;

      await admin.modify(`uid=lingyun,${HR}`, new Change({ operation: 'delete', modification: new Attribute({ type: 'employeeType', values: [] }) }));
      await admin.modifyDN(`uid=guojing,${HR}`, `uid=guojing,${FE}`);
      await admin.modifyDN(HR, `ou=人力资源部,${PEOPLE_DN}`);
      const report = await runLdapSync(deps, { mode: 'full' });
      expect(report.status, report.errors.join('; ')).toBe('ok');
      expect(report.diff!.reactivatedUsers).toEqual(['lingyun']);
      expect(report.diff!.updated.departments).toEqual([hrId]);

      expect((await callAs(app, 'lingyun', '/users/current/info')).status).toBe(200);
      expect(await departmentPaths(app, 'lilei', 'guojing')).toEqual([['研发部', '前端组']]);
      // Without the refint overlay, group Managers still names huangrong's old DN: no longer a member.
      expect(await departmentPaths(app, 'lilei', 'huangrong')).toEqual([['人力资源部']]);
      expect(((await callAs(app, 'lilei', `/departments/${hrId}`)).body as { name: string }).name).toBe('人力资源部');
    });
  });
}
