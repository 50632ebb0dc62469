import { randomBytes } from 'node:crypto';
import type { Check, CheckContext } from '../check.js';
import type { HttpRequest } from '../http-client.js';
import { epochSeconds, isRecord, signHs256, type AppCredentials } from '../jwt.js';
import { query, seg } from '../probe.js';
import { ADMIN_FILE, object, str } from '../shapes.js';

/** The three signed callbacks for a file, each with the claims a valid signature carries. */
function signedEndpoints(c: CheckContext, fileId: string): Array<{ path: string; request: HttpRequest; claims: { fileId: string; userId?: string } }> {
  return [
    { path: `/admin/files/${seg(fileId)}`, request: {}, claims: { fileId } },
    { path: `/admin/files/${seg(fileId)}/by-user-id${query({ userId: c.found.userId })}`, request: {}, claims: { fileId, userId: c.found.userId } },
    { path: `/files/${seg(fileId)}/url`, request: { method: 'POST' }, claims: { fileId } },
  ];
}

/** Headers of a request carrying the given signature as the platform sends it. */
function signatureHeaders(c: CheckContext, signature: string, credentials: AppCredentials): Record<string, string> {
  const h = c.probe.headers;
  return { [h.credentialType]: '3', [h.signature]: signature, [h.appId]: credentials.appId };
}

function refused(status: number): boolean {
  return status >= 400 && status <= 499;
}

/** Part 4.1 and 5: the platform-signed callbacks (credential type 3) with the application's credentials. */
export const signedChecks: Check[] = [
  {
    id: 'signed.admin-file',
    group: 'signed',
    section: '4.1',
    title: "GET /admin/files/{fileId}, signed, answers the file's fields with permissions.readable true",
    async run(c) {
      const credentials = c.credentials();
      const fileId = c.fileId();
      const body = c.ok(await c.probe.signed(credentials, { fileId }, `/admin/files/${seg(fileId)}`));
      if (body === undefined || !c.shape(ADMIN_FILE, body, `admin file ${fileId}`)) return;
      const file = body as { id: string; permissions: { readable: boolean } };
      if (file.id !== fileId) c.fail(`GET /admin/files/${fileId} answered id "${file.id}"`);
      if (file.permissions.readable !== true) c.fail(`GET /admin/files/${fileId}: permissions.readable must be true (7.6)`);
    },
  },
  {
    id: 'signed.by-user-id',
    group: 'signed',
    section: '4.1',
    title: "GET /admin/files/{fileId}/by-user-id?userId, signed, answers that user's permissions (those GET /files/{fileId} gives them)",
    async run(c) {
      const credentials = c.credentials();
      const fileId = c.fileId();
      const path = `/admin/files/${seg(fileId)}/by-user-id${query({ userId: c.found.userId })}`;
      const body = c.ok(await c.probe.signed(credentials, { fileId, userId: c.found.userId }, path));
      if (body === undefined || !c.shape(ADMIN_FILE, body, `by-user-id ${fileId}`)) return;
      const permissions = (body as { permissions: Record<string, boolean> }).permissions;
      if (permissions.readable !== true) c.fail(`GET ${path}: permissions.readable must be true (7.6)`);
      const own = await c.probe.read(`/files/${seg(fileId)}`);
      if (own.status === 200 && isRecord(own.body) && isRecord(own.body.permissions)) {
        for (const [flag, value] of Object.entries(own.body.permissions)) {
          if (flag !== 'readable' && permissions[flag] !== value) {
            c.fail(`GET ${path}: ${flag} ${String(permissions[flag])} but GET /files/${fileId} as that user says ${String(value)}`);
          }
        }
      }
    },
  },
  {
    id: 'signed.file-url',
    group: 'signed',
    section: '4.1',
    title: 'POST /files/{fileId}/url with X-Platform-Signature answers { url } with a full http(s) address',
    async run(c) {
      const credentials = c.credentials();
      const fileId = c.fileId();
      const h = c.probe.headers;
      const signature = signHs256({ fileId, iat: epochSeconds(), exp: epochSeconds() + 120 }, credentials.appSecret, { kid: credentials.appId });
      const body = c.ok(await c.probe.call(`/files/${seg(fileId)}/url`, { method: 'POST', headers: { [h.signature]: signature } }));
      if (body === undefined || !c.shape(object({ url: str }), body, 'file url')) return;
      const url = (body as { url: string }).url;
      if (!/^https?:\/\/\S+$/.test(url)) c.fail(`POST /files/${fileId}/url: url ${JSON.stringify(url)} is not a complete http(s) address`);
    },
  },
  {
    id: 'signed.unsigned-refused',
    group: 'signed',
    section: '5',
    title: 'the signed callbacks refuse a request without a signature, and one carrying only the user token (4xx)',
    async run(c) {
      c.credentials();
      const fileId = c.fileId();
      for (const { path, request } of signedEndpoints(c, fileId)) {
        const bare = await c.probe.call(path, request);
        if (!refused(bare.status)) c.fail(`${bare.method} ${path} without any credential answered ${bare.status}`);
        const tokenOnly = await c.probe.asUser(path, request);
        if (!refused(tokenOnly.status)) c.fail(`${tokenOnly.method} ${path} with only the user token answered ${tokenOnly.status}`);
      }
    },
  },
  {
    id: 'signed.forged-refused',
    group: 'signed',
    section: '5',
    title: 'the signed callbacks refuse a wrong signature: another key, alg none, expired, another file, another user (4xx)',
    async run(c) {
      const credentials = c.credentials();
      const fileId = c.fileId();
      const now = epochSeconds();
      const other = `conformance-other-${randomBytes(4).toString('hex')}`;
      for (const { path, request, claims } of signedEndpoints(c, fileId)) {
        const good = { ...claims, iat: now, exp: now + 120 };
        const head = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', kid: credentials.appId })).toString('base64url');
        const wrong: Array<[string, string]> = [
          ['signed with another key', signHs256(good, randomBytes(24).toString('hex'), { kid: credentials.appId })],
          ['alg none', `${head}.${Buffer.from(JSON.stringify(good)).toString('base64url')}.`],
          ['expired', signHs256({ ...good, iat: now - 600, exp: now - 300 }, credentials.appSecret, { kid: credentials.appId })],
          ['made for another file', signHs256({ ...good, fileId: other }, credentials.appSecret, { kid: credentials.appId })],
        ];
        if (claims.userId !== undefined) {
          wrong.push(['made for another user', signHs256({ ...good, userId: other }, credentials.appSecret, { kid: credentials.appId })]);
        }
        for (const [what, signature] of wrong) {
          const answer = await c.probe.call(path, { ...request, headers: signatureHeaders(c, signature, credentials) });
          if (!refused(answer.status)) c.fail(`${answer.method} ${path} with a signature ${what} answered ${answer.status}`);
        }
      }
    },
  },
];
