import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Config } from '../../src/config/config.js';
import type { FileInput } from '../../src/store/directory-writes/directory-writer.js';
import { readSyncConfig } from '../../src/config/sync.js';
import { asUser, makeTestConfig } from '../helpers/app.js';
import { BASE_DN, READER_DN, READER_PASSWORD } from './slapd.js';

export const COMPANY_LDIF = readFileSync(new URL('./fixtures/company.ldif', import.meta.url), 'utf8');
export const PEOPLE_DN = `ou=people,${BASE_DN}`;

/** The test configuration with LDAP (and optionally SCIM) variables as an operator would set them. */
export function configWithSync(env: Record<string, string>): Config {
  return makeTestConfig({ sync: readSyncConfig((name) => env[name]) });
}

/** LDAP variables for the fixture: OUs below ou=people and the groups of ou=groups are departments. */
export function ldapEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LDAP_URL: url,
    LDAP_BIND_DN: READER_DN,
    LDAP_BIND_PASSWORD: READER_PASSWORD,
    LDAP_BASE_DN: BASE_DN,
    LDAP_USER_BASE_DN: PEOPLE_DN,
    LDAP_DEPARTMENTS: 'ou,groups',
    LDAP_DEPARTMENT_BASE_DN: PEOPLE_DN,
    LDAP_GROUP_BASE_DN: `ou=groups,${BASE_DN}`,
    LDAP_USER_AVATAR_ATTRIBUTE: 'labeledURI',
    LDAP_USER_IM_ATTRIBUTES: 'wecom=employeeNumber, dingtalk=departmentNumber',
    LDAP_USER_DISABLED_FILTER: '(employeeType=disabled)',
    LDAP_TEAM_ID: 'corp',
    LDAP_TEAM_NAME: 'Example 公司',
    LDAP_PAGE_SIZE: '10',
    ...extra,
  };
}

/** A callback as `userId`: status and body. */
export async function callAs(app: FastifyInstance, userId: string, url: string, payload?: object) {
  const response = await app.inject({ method: payload ? 'POST' : 'GET', url, headers: asUser(userId), ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() };
}

/** A user's department paths by name, e.g. [['研发部', '前端组'], ['项目组', '凤凰项目']], in code-point order. */
export async function departmentPaths(app: FastifyInstance, viewer: string, userId: string): Promise<string[][]> {
  const { status, body } = await callAs(app, viewer, `/users/${encodeURIComponent(userId)}/department-paths`);
  expect(status, JSON.stringify(body)).toBe(200);
  return (body as Array<Array<{ name: string }>>).map((path) => path.map((node) => node.name)).sort((a, b) => (a.join('/') < b.join('/') ? -1 : 1));
}

/** A document of `teamId` created by `creatorId` (a user who created files is deactivated, not removed). */
export function documentBy(creatorId: string, id: string, teamId: string): FileInput {
  return {
    id,
    name: `${creatorId} 的文档`,
    type: 'document',
    creatorId,
    teamId,
    createdAt: '2024-01-01T00:00:00Z',
    updatedAt: '2024-01-01T00:00:00Z',
    views: null,
    ext: null,
    downloadUrl: null,
    fullUrl: null,
    restrictions: { copy: true, export: true },
    status: 'active',
  };
}
