import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEARCH_PAGE_SIZE } from '../../src/directory/search-page.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { ALL_KINDS, ids, search } from './search-http.js';
import { seedSearchCompany, UNREADABLE_FOR_HANMEIMEI } from './search-fixture.js';
import { withKitKeys } from '../helpers/permissions.js';

describeEachStore('POST /search', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedSearchCompany(store().db);
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  describe('matching', () => {
    it('finds Chinese names by substring, one, two and three characters long', async () => {
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: '梅' })).teamMembers)).toEqual(['hanmeimei']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: '梅梅' })).teamMembers)).toEqual(['hanmeimei']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: '阳娜娜' })).teamMembers)).toEqual(['cn-ouyang']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: '娜' })).teamMembers)).toEqual(['cn-guan', 'cn-an', 'cn-ouyang']);
      expect(ids((await search(app, 'hanmeimei', { type: 'file_name', keyword: '度计划' })).files)).toEqual(['plan']);
      expect(ids((await search(app, 'hanmeimei', { type: 'file_name', keyword: '计划' })).files)).toEqual(['plan']);
    });

    it('finds Chinese names by full pinyin, pinyin initials and a pinyin piece', async () => {
      for (const keyword of ['hanmei', 'hanmeimei', 'hmm', 'hm', 'HanMei', 'meimei']) {
        expect(ids((await search(app, 'zhang', { type: 'team_member', keyword })).teamMembers), keyword).toEqual(['hanmeimei']);
      }
      expect(ids((await search(app, 'zhang', { type: 'department', keyword: 'chongqing' })).department)).toEqual(['cq']);
      expect(ids((await search(app, 'zhang', { type: 'department', keyword: 'cq' })).department)).toEqual(['cq']);
      expect(ids((await search(app, 'hanmeimei', { type: 'file_name', keyword: 'jidu' })).files)).toEqual(['plan']);
      // Short pinyin matches as a prefix only (欧阳娜娜: ouyangnana, oynn); three letters match anywhere in it.
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'yn' })).teamMembers)).toEqual([]);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'ynn' })).teamMembers)).toEqual(['cn-ouyang']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'gnan' })).teamMembers)).toEqual(['cn-ouyang']);
    });

    it('ignores case and full-width forms, and matches the e-mail local part but not the domain', async () => {
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'ALICE' })).teamMembers)).toEqual(['alice']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'sMiTh' })).teamMembers)).toEqual(['alice']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'ＢＯＢ' })).teamMembers)).toEqual(['bob']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'kaifa.lead' })).teamMembers)).toEqual(['dev']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'KAIFA' })).teamMembers)).toEqual(['dev']);
      expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'qa07' })).teamMembers)).toEqual(['tester07']);
      expect((await search(app, 'zhang', { type: 'team_member', keyword: 'example' })).teamMembers.count).toBe(0);
      expect((await search(app, 'zhang', { type: 'team_member', keyword: '@' })).teamMembers.count).toBe(0);
    });

    it('ranks exact, then prefix, then substring, then pinyin prefix, then pinyin piece', async () => {
      const found = await search(app, 'zhang', { type: 'team_member', keyword: 'ann' });
      expect(found.teamMembers.results.map((user) => user.name)).toEqual(['Ann', 'Anna Lee', 'Joanne', '安娜', '关娜']);
    });

    it('treats LIKE and FTS special characters as text', async () => {
      for (const keyword of ['%', '_', '"', 'a%b', '"plan', "o'", '\\']) {
        const found = await search(app, 'zhang', { type: ALL_KINDS, keyword });
        expect(found.teamMembers.count, keyword).toBe(0);
        expect(found.files.count, keyword).toBe(0);
      }
    });
  });

  describe('kinds', () => {
    it('fills every kind when all are asked for, each with its own shape', async () => {
      const found = await search(app, 'lilei', { type: ALL_KINDS, keyword: '', fileId: 'plan', pageSize: 50 });
      expect(Object.keys(found).sort()).toEqual(['collaborators', 'department', 'files', 'recentUsers', 'teamMembers']);
      expect(ids(found.collaborators)).toEqual(['zhang', 'lilei']);
      expect(found.teamMembers.count).toBe(26);
      expect(found.department.count).toBe(6);
      expect(found.recentUsers.count).toBeGreaterThan(0);
      expect(ids(found.files).sort()).toEqual(['plan', 'sheet', 'teamdoc']);
      const plan = found.files.results.find((file) => file.id === 'plan');
      expect(plan).toEqual({
        id: 'plan',
        name: '季度计划',
        type: 'documentPro',
        creatorId: 'zhang',
        createdAt: '2024-03-01T08:00:00Z',
        updatedAt: '2024-03-05T08:00:00Z',
        views: 3,
        permissions: withKitKeys({ readable: true, commentable: true, editable: true, copyable: true, exportable: true, manageable: false }),
      });
      expect(found.teamMembers.results.find((user) => user.id === 'hanmeimei')).toEqual({
        id: 'hanmeimei',
        name: '韩梅梅',
        avatar: 'https://avatars.example.com/hanmeimei.png',
        email: 'hanmeimei@example.com',
      });
    });

    it('searches only the kinds asked for and answers the others with empty wrappers', async () => {
      const found = await search(app, 'lilei', { type: 'department', keyword: '', page: 1, pageSize: 4 });
      expect(found.department).toMatchObject({ count: 6, page: 1, pageSize: 4, pageCount: 2 });
      const empty = { count: 0, page: 1, pageSize: 4, pageCount: 0, results: [] };
      expect(found.files).toEqual(empty);
      expect(found.recentUsers).toEqual(empty);
      expect(found.collaborators).toEqual(empty);
      expect(found.teamMembers).toEqual(empty);
    });

    it('ignores unknown tokens, white space and case in `type`', async () => {
      const found = await search(app, 'zhang', { type: ' Team_Member , emoji_reaction,,future_kind ', keyword: 'bob' });
      expect(ids(found.teamMembers)).toEqual(['bob']);
      expect(found.files.count).toBe(0);
      const none = await search(app, 'zhang', { type: 'something_new', keyword: 'bob' });
      expect([none.files, none.recentUsers, none.collaborators, none.teamMembers, none.department].every((w) => w.count === 0)).toBe(true);
    });

    it('gives each kind alone the same page it has among all kinds', async () => {
      const together = await search(app, 'hanmeimei', { type: ALL_KINDS, keyword: 'a', fileId: 'sheet' });
      const alone = await Promise.all(
        ['file_name', 'recent_contact', 'collaborator', 'team_member', 'department'].map((type) => search(app, 'hanmeimei', { type, keyword: 'a', fileId: 'sheet' })),
      );
      expect(alone[0]!.files).toEqual(together.files);
      expect(alone[1]!.recentUsers).toEqual(together.recentUsers);
      expect(alone[2]!.collaborators).toEqual(together.collaborators);
      expect(alone[3]!.teamMembers).toEqual(together.teamMembers);
      expect(alone[4]!.department).toEqual(together.department);
      // Bob's e-mail domain has an `a`; the domain is not matched.
      expect(ids(together.collaborators)).toEqual(['alice']);
    });

    it('restricts team members and departments to the viewer’s own team', async () => {
      const found = await search(app, 'olga', { type: 'team_member,department', keyword: '' });
      expect(ids(found.teamMembers)).toEqual(['olga']);
      expect(ids(found.department)).toEqual(['ops']);
      const acme = await search(app, 'zhang', { type: 'team_member,department', keyword: 'o' });
      expect(ids(acme.teamMembers)).not.toContain('olga');
      expect(ids(acme.department)).not.toContain('ops');
      const outsider = await search(app, 'outsider', { type: 'team_member,department', keyword: '' });
      expect(outsider.teamMembers.count + outsider.department.count).toBe(0);
    });

    it('gives departments their member count and ancestors top-down, [] at the first level', async () => {
      const web = await search(app, 'zhang', { type: 'department', keyword: 'web' });
      expect(web.department.results).toEqual([
        {
          id: 'web',
          name: 'Web 小组',
          allMemberCount: 1,
          parentDepartments: [
            { id: 'rd', name: '研发部' },
            { id: 'fe', name: '前端组' },
          ],
        },
      ]);
      const rd = await search(app, 'zhang', { type: 'department', keyword: '研发' });
      expect(rd.department.results).toEqual([{ id: 'rd', name: '研发部', allMemberCount: 4, parentDepartments: [] }]);
      // An empty keyword puts the viewer's departments and their ancestors first.
      const mine = await search(app, 'wang', { type: 'department', keyword: '', pageSize: 3 });
      expect(ids(mine.department).sort()).toEqual(['fe', 'rd', 'web']);
    });

    it('gives third-party files their fullUrl and documents none', async () => {
      const found = await search(app, 'alice', { type: 'file_name', keyword: '合同' });
      expect(found.files.results).toEqual([expect.objectContaining({ id: 'contract', type: 'file', fullUrl: 'https://oa.example.com/contract' })]);
      const docs = await search(app, 'alice', { type: 'file_name', keyword: '', pageSize: 50 });
      for (const file of docs.files.results) if (file.type !== 'file') expect(file).not.toHaveProperty('fullUrl');
    });
  });

  describe('paging', () => {
    it('counts, pages and stops at the last page', async () => {
      const request = { type: 'team_member', keyword: 'tester', pageSize: 5 };
      const first = await search(app, 'zhang', { ...request, page: 0 });
      expect(first.teamMembers).toMatchObject({ count: 12, page: 0, pageSize: 5, pageCount: 3 });
      expect(first.teamMembers.results.map((u) => u.name)).toEqual(['Tester 01', 'Tester 02', 'Tester 03', 'Tester 04', 'Tester 05']);
      const last = await search(app, 'zhang', { ...request, page: 2 });
      expect(last.teamMembers).toMatchObject({ count: 12, page: 2, pageCount: 3 });
      expect(last.teamMembers.results.map((u) => u.name)).toEqual(['Tester 11', 'Tester 12']);
      const past = await search(app, 'zhang', { ...request, page: 3 });
      expect(past.teamMembers).toEqual({ count: 12, page: 3, pageSize: 5, pageCount: 3, results: [] });
      const far = await search(app, 'zhang', { ...request, page: 1000 });
      expect(far.teamMembers).toEqual({ count: 12, page: 1000, pageSize: 5, pageCount: 3, results: [] });
    });

    it('has an exact last page when the count divides by the page size', async () => {
      const found = await search(app, 'zhang', { type: 'team_member', keyword: 'tester', pageSize: 4, page: 2 });
      expect(found.teamMembers).toMatchObject({ count: 12, pageCount: 3 });
      expect(found.teamMembers.results).toHaveLength(4);
      expect((await search(app, 'zhang', { type: 'team_member', keyword: 'tester', pageSize: 4, page: 3 })).teamMembers.results).toEqual([]);
      expect((await search(app, 'zhang', { type: 'team_member', keyword: 'tester', pageSize: 12 })).teamMembers.pageCount).toBe(1);
      expect((await search(app, 'zhang', { type: 'team_member', keyword: 'nobody-here' })).teamMembers).toMatchObject({ count: 0, pageCount: 0 });
    });

    it('defaults to page 0 of 6 and serves a page size above the cap as the cap', async () => {
      const found = await search(app, 'zhang', { type: 'team_member', keyword: 'tester' });
      expect(found.teamMembers).toMatchObject({ page: 0, pageSize: 6, pageCount: 2 });
      const big = await search(app, 'zhang', { type: 'team_member', keyword: '', pageSize: 10_000 });
      expect(big.teamMembers.pageSize).toBe(MAX_SEARCH_PAGE_SIZE);
    });

    it('pages files newest first within a tier', async () => {
      const pages = await Promise.all([0, 1, 2, 3].map((page) => search(app, 'hanmeimei', { type: 'file_name', keyword: '周报', pageSize: 3, page })));
      expect(pages.map((p) => ids(p.files))).toEqual([['report7', 'report6', 'report5'], ['report4', 'report3', 'report2'], ['report1'], []]);
      expect(pages.every((p) => p.files.count === 7 && p.files.pageCount === 3)).toBe(true);
    });
  });

  describe('permissions', () => {
    it('never offers a file the user may not read, in any kind, on any page', async () => {
      for (const keyword of ['', '周', '周报', '周报 机', 'secret', 'plan', 'contract', '合同', 'locked', 'doc', 'e', 'o']) {
        for (let page = 0; ; page += 1) {
          const found = await search(app, 'hanmeimei', { type: ALL_KINDS, keyword, page, pageSize: 2, fileId: 'secret' });
          for (const hidden of UNREADABLE_FOR_HANMEIMEI) expect(JSON.stringify(found), `${keyword} page ${page}`).not.toContain(`"id":"${hidden}"`);
          expect(found.files.results.every((file) => file.permissions.readable)).toBe(true);
          if (page + 1 >= found.files.pageCount) break;
        }
      }
      expect((await search(app, 'zhang', { type: 'file_name', keyword: '周报 机' })).files.count).toBe(1);
      expect((await search(app, 'hanmeimei', { type: 'file_name', keyword: '周报 机' })).files.count).toBe(0);
      expect((await search(app, 'lilei', { type: 'file_name', keyword: 'secret plan' })).files.count).toBe(0);
      expect((await search(app, 'zhang', { type: 'file_name', keyword: 'secret plan' })).files.count).toBe(1);
    });

    it('counts only readable files, so pages add up', async () => {
      const found = await search(app, 'hanmeimei', { type: 'file_name', keyword: '', pageSize: 50 });
      expect(found.files.count).toBe(found.files.results.length);
      expect(ids(found.files).sort()).toEqual(['plan', 'report1', 'report2', 'report3', 'report4', 'report5', 'report6', 'report7', 'sheet', 'teamdoc']);
    });

    it('offers no collaborators of a file the user may not read, nor of an unknown one', async () => {
      for (const fileId of ['secret', 'no-such-file']) {
        const found = await search(app, 'hanmeimei', { type: 'collaborator,recent_contact', keyword: '', fileId });
        expect(found.collaborators.count).toBe(0);
        expect(ids(found.recentUsers)).not.toContain('zhang');
      }
    });

    it('gives each file the viewer’s own permissions', async () => {
      const found = await search(app, 'alice', { type: 'file_name', keyword: '全员' });
      expect(found.files.results[0]?.permissions).toEqual(
        withKitKeys({
          readable: true,
          commentable: false,
          editable: false,
          copyable: false,
          exportable: false,
          manageable: false,
        }),
      );
    });
  });

  describe('bad requests', () => {
    it('answers a body of the wrong shape with a 400 and the JSON error', async () => {
      const bad = [
        { keyword: 'x' },
        { type: 5 },
        { type: 'team_member', keyword: 7 },
        { type: 'team_member', page: -1 },
        { type: 'team_member', page: 1.5 },
        { type: 'team_member', pageSize: 0 },
        { type: 'team_member', pageSize: '6' },
        { type: 'team_member', fileId: ['plan'] },
        ['team_member'],
      ];
      for (const payload of bad) {
        const response = await app.inject({ method: 'POST', url: '/search', headers: asUser('zhang'), payload });
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
      }
    });

    it('refuses a request without a valid user token', async () => {
      const response = await app.inject({ method: 'POST', url: '/search', payload: { type: 'team_member' } });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('token_missing');
    });
  });
});
