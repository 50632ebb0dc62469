import { randomBytes } from 'node:crypto';
import type { Check, CheckContext } from '../check.js';
import type { HttpRequest } from '../http-client.js';
import { peekClaims, signHs256 } from '../jwt.js';
import { query, seg } from '../probe.js';
import { rootId } from './common.js';

/** The user-context callbacks (credential type 0), with the ids discovery found. */
function userEndpoints(c: CheckContext): Array<{ path: string; request: HttpRequest }> {
  const me = seg(c.found.userId);
  const get = (path: string) => ({ path, request: {} });
  const endpoints = [
    get('/users/current/info'),
    get('/users/current/team'),
    get(`/users/${me}`),
    get(`/users/${me}/watermark`),
    get(`/users/${me}/department-paths`),
    { path: '/users/batch/get', request: { method: 'POST' as const, body: { ids: [c.found.userId] } } },
    get(`/files${query({ limit: 1 })}`),
  ];
  const fileId = c.found.fileId;
  if (fileId !== undefined) {
    endpoints.push(
      get(`/files/${seg(fileId)}`),
      get(`/files/${seg(fileId)}/collaborators`),
      get(`/search/users/recent${query({ fileId })}`),
      get(`/search/files/recent${query({ fileId })}`),
      { path: '/search', request: { method: 'POST', body: { fileId, keyword: 'a', page: 0, pageSize: 6, type: 'team_member' } } },
    );
  }
  const teamId = c.found.teamId;
  if (teamId !== undefined) endpoints.push(get(`/teams/${seg(teamId)}/members`), get(`/departments/${seg(rootId(teamId))}/children`));
  return endpoints;
}

/** Look-alike tokens the server must refuse: the token's claims signed with another key, and with `alg: none`. */
function forgedTokens(token: string): string[] {
  const claims = peekClaims(token);
  if (!claims) return [`${token}x`, `forged-${randomBytes(8).toString('hex')}`];
  const head = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return [signHs256(claims, randomBytes(24).toString('hex')), `${head}.${body}.`];
}

/** Part 5 and 7.1: user-context callbacks refuse a request without a valid token with a 4xx. */
export const authChecks: Check[] = [
  {
    id: 'auth.no-token',
    group: 'auth',
    section: '5',
    title: 'every user-context callback refuses a request without X-Platform-Token (4xx)',
    async run(c) {
      for (const { path, request } of userEndpoints(c)) {
        const answer = await c.probe.call(path, request);
        if (answer.status < 400 || answer.status > 499) c.fail(`${answer.method} ${path} without a token answered ${answer.status}`);
      }
    },
  },
  {
    id: 'auth.forged-token',
    group: 'auth',
    section: '5',
    title: 'every user-context callback refuses a forged token (other key, alg none) with a 4xx',
    async run(c) {
      for (const forged of forgedTokens(c.probe.options.token)) {
        for (const { path, request } of userEndpoints(c)) {
          const answer = await c.probe.withToken(forged, path, request);
          if (answer.status < 400 || answer.status > 499) c.fail(`${answer.method} ${path} with a forged token (${forged.slice(0, 16)}…) answered ${answer.status}`);
        }
      }
    },
  },
];
