import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256 } from '../../src/auth/jwt.js';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { asUser, buildTestApp, makeTestConfig, tokenFor } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { withKitKeys } from '../helpers/permissions.js';

const config = makeTestConfig();
const credentials = { appId: config.appId, appSecret: config.appSecret };
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A signature as the platform makes it for a signed callback. */
const signature = (claims: { fileId?: string; userId?: string } = {}) => mintSignature(credentials, { ttlSeconds: 120, ...claims });
const signed = (sig: string) => ({ 'x-platform-credential-type': '3', 'x-platform-signature': sig });

const viewerPermissions = withKitKeys({ readable: true, commentable: false, editable: false, copyable: true, exportable: true, manageable: false });

describeEachStore('signed callbacks', (store) => {
  let app: FastifyInstance;

  beforeAll(async () => {
    await seedDirectory(store().db);
    await upsertFiles(store().db, [
      {
        id: 'pending-doc',
        name: 'Not yet created',
        type: 'documentPro',
        creatorId: 'zhang',
        teamId: 'acme',
        createdAt: '2024-03-01T08:00:00Z',
        updatedAt: '2024-03-01T08:00:00Z',
        views: null,
        ext: null,
        downloadUrl: null,
        fullUrl: null,
        restrictions: { copy: true, export: true },
        status: 'pending',
      },
    ]);
    app = await buildTestApp(store());
  });
  afterAll(() => app.close());

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  describe('GET /admin/files/{fileId}', () => {
    it('answers the file as an automatic task sees it, readable with the file restrictions', async () => {
      const response = await get('/admin/files/plan', signed(signature({ fileId: 'plan' })));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id: 'plan',
        name: '季度计划',
        type: 'documentPro',
        creatorId: 'zhang',
        createdAt: '2024-03-01T08:00:00Z',
        updatedAt: '2024-03-05T08:00:00Z',
        views: 3,
        permissions: viewerPermissions,
      });
      const locked = await get('/admin/files/locked', signed(signature({ fileId: 'locked' })));
      expect(locked.json().permissions).toEqual(withKitKeys({ readable: true, commentable: false, editable: false, copyable: false, exportable: false, manageable: false }));
      expect(locked.json().views).toBe(1);
    });

    it('refuses a signature made for another file with 403', async () => {
      const response = await get('/admin/files/sheet', signed(signature({ fileId: 'plan' })));
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ error: { code: 'signature_other_file', message: 'the platform signature was made for another file' } });
    });

    it('refuses a signature without a fileId with 403 (the payload must carry it)', async () => {
      const response = await get('/admin/files/plan', signed(signature()));
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('signature_other_file');
    });

    const refusals: Array<[string, () => Record<string, string>, string]> = [
      ['no signature', () => ({}), 'signature_missing'],
      ['only a user token', () => asUser('zhang'), 'signature_missing'],
      ['a user token in the signature header', () => signed(tokenFor('zhang')), 'signature_invalid'],
      [
        'a signature made with another secret',
        () => signed(signHs256({ exp: nowSeconds() + 60, fileId: 'plan' }, 'wrong-secret-0123456789', { kid: config.appId })),
        'signature_invalid',
      ],
      ['a tampered payload', () => signed(tamper(signature({ fileId: 'secret' }), { fileId: 'plan' })), 'signature_invalid'],
      ['alg none', () => signed(algNone({ exp: nowSeconds() + 60, fileId: 'plan' })), 'signature_algorithm'],
      ['another kid', () => signed(signHs256({ exp: nowSeconds() + 60, fileId: 'plan' }, config.appSecret, { kid: 'other-app' })), 'signature_wrong_app'],
      ['an expired signature', () => signed(signHs256({ exp: nowSeconds() - 5, fileId: 'plan' }, config.appSecret, { kid: config.appId })), 'signature_expired'],
      [
        'iat 10 minutes off',
        () => signed(signHs256({ exp: nowSeconds() + 60, iat: nowSeconds() - 600, fileId: 'plan' }, config.appSecret, { kid: config.appId })),
        'signature_iat_skew',
      ],
      [
        'a license signature collab-host minted for the platform API',
        () => signed(mintSignature(credentials, { ttlSeconds: 60, fileId: 'plan', scope: 'license' })),
        'signature_wrong_scope',
      ],
      ['garbage', () => signed('garbage'), 'signature_malformed'],
    ];
    it.each(refusals)('refuses %s with 401', async (_what, headers, code) => {
      const response = await get('/admin/files/plan', headers());
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe(code);
      expect(response.json().error.message).toEqual(expect.any(String));
    });

    it('answers 404 for an unknown file and for a document whose platform creation is pending', async () => {
      for (const id of ['nope', 'pending-doc']) {
        const response = await get(`/admin/files/${id}`, signed(signature({ fileId: id })));
        expect(response.statusCode).toBe(404);
        expect(response.json().error.code).toBe('file_not_found');
      }
    });
  });

  describe('GET /admin/files/{fileId}/by-user-id', () => {
    it("answers the file with that user's real permissions", async () => {
      const editor = await get('/admin/files/plan/by-user-id?userId=lilei', signed(signature({ fileId: 'plan', userId: 'lilei' })));
      expect(editor.statusCode).toBe(200);
      expect(editor.json().permissions).toEqual(withKitKeys({ readable: true, commentable: true, editable: true, copyable: true, exportable: true, manageable: false }));
      const creator = await get('/admin/files/plan/by-user-id?userId=zhang', signed(signature({ fileId: 'plan', userId: 'zhang' })));
      expect(creator.json().permissions.manageable).toBe(true);
      const viaDepartment = await get('/admin/files/plan/by-user-id?userId=wang', signed(signature({ fileId: 'plan', userId: 'wang' })));
      expect(viaDepartment.json().permissions).toEqual(viewerPermissions);
    });

    it('answers 403 file_not_readable when that user may not read the file', async () => {
      const response = await get('/admin/files/secret/by-user-id?userId=alice', signed(signature({ fileId: 'secret', userId: 'alice' })));
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ error: { code: 'file_not_readable', message: 'user alice may not read file secret' } });
    });

    it('refuses a signature made for another user (403) or without the userId (403)', async () => {
      const other = await get('/admin/files/plan/by-user-id?userId=lilei', signed(signature({ fileId: 'plan', userId: 'zhang' })));
      expect(other.statusCode).toBe(403);
      expect(other.json().error.code).toBe('signature_other_user');
      const noUser = await get('/admin/files/plan/by-user-id?userId=lilei', signed(signature({ fileId: 'plan' })));
      expect(noUser.statusCode).toBe(403);
      const otherFile = await get('/admin/files/plan/by-user-id?userId=lilei', signed(signature({ fileId: 'sheet', userId: 'lilei' })));
      expect(otherFile.json().error.code).toBe('signature_other_file');
    });

    it('answers 400 without userId and 404 for an unknown user', async () => {
      const missing = await get('/admin/files/plan/by-user-id', signed(signature({ fileId: 'plan' })));
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error.code).toBe('invalid_request');
      const unknown = await get('/admin/files/plan/by-user-id?userId=ghost', signed(signature({ fileId: 'plan', userId: 'ghost' })));
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('user_not_found');
    });

    it('refuses a user token alone', async () => {
      const response = await get('/admin/files/plan/by-user-id?userId=zhang', asUser('zhang'));
      expect(response.statusCode).toBe(401);
    });
  });

  describe('POST /files/{fileId}/url', () => {
    const post = (fileId: string, headers: Record<string, string>) => app.inject({ method: 'POST', url: `/files/${fileId}/url`, headers });

    it("answers the file's fullUrl, else FILE_URL_TEMPLATE (signature header only, no credential type)", async () => {
      const own = await post('contract', { 'x-platform-signature': signature({ fileId: 'contract' }) });
      expect(own.statusCode).toBe(200);
      expect(own.json()).toEqual({ url: 'https://oa.example.com/contract' });
      const templated = await post('plan', { 'x-platform-signature': signature({ fileId: 'plan' }) });
      expect(templated.json()).toEqual({ url: 'http://oa.test/files/plan' });
    });

    it('refuses a signature for another file (403), none (401) and a user token (401)', async () => {
      expect((await post('plan', { 'x-platform-signature': signature({ fileId: 'sheet' }) })).statusCode).toBe(403);
      expect((await post('plan', {})).statusCode).toBe(401);
      expect((await post('plan', asUser('zhang'))).statusCode).toBe(401);
    });

    it('answers 404 for an unknown file', async () => {
      const response = await post('nope', { 'x-platform-signature': signature({ fileId: 'nope' }) });
      expect(response.statusCode).toBe(404);
    });
  });

  describe('POST /admin/users/batch/get', () => {
    const batch = (body: unknown, headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/admin/users/batch/get', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

    it('answers the known users in the order asked, as POST /users/batch/get does', async () => {
      const response = await batch({ ids: ['lilei', 'ghost', 'bob', 'lilei'] }, signed(signature()));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual([
        { id: 'lilei', name: '李雷', avatar: 'https://avatars.example.com/lilei.png', email: 'lilei@example.com' },
        { id: 'bob', name: 'Bob Brown', avatar: 'https://avatars.example.com/bob.png', email: 'bob@example.com' },
      ]);
      const sameAsUserBatch = await batch({ ids: ['lilei', 'ghost', 'bob', 'lilei'] }, asUser('zhang'));
      expect(sameAsUserBatch.statusCode).toBe(401);
      const userBatch = await app.inject({
        method: 'POST',
        url: '/users/batch/get',
        headers: { ...asUser('zhang'), 'content-type': 'application/json' },
        payload: JSON.stringify({ ids: ['lilei', 'ghost', 'bob', 'lilei'] }),
      });
      expect(userBatch.json()).toEqual(response.json());
    });

    it('checks the signature before the body: no signature and a bad body is 401', async () => {
      expect((await batch({ ids: 5 }, {})).statusCode).toBe(401);
      const bad = await batch({ ids: 5 }, signed(signature()));
      expect(bad.statusCode).toBe(400);
    });
  });

  it('a valid signature never opens a user-context callback', async () => {
    const sig = signature({ fileId: 'plan', userId: 'zhang' });
    expect((await get('/users/current/info', signed(sig))).statusCode).toBe(401);
    expect((await get('/files/plan', { ...signed(sig), 'x-platform-token': sig })).statusCode).toBe(401);
  });
});

describeEachStore('signed callbacks with SIGNATURE_REQUIRED=false', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { signatureRequired: false });
  });
  afterAll(() => app.close());

  it('accepts unsigned requests', async () => {
    const response = await app.inject({ method: 'GET', url: '/admin/files/plan/by-user-id?userId=lilei' });
    expect(response.statusCode).toBe(200);
    expect(response.json().permissions.editable).toBe(true);
    expect((await app.inject({ method: 'POST', url: '/files/plan/url' })).json()).toEqual({ url: 'http://oa.test/files/plan' });
  });

  it('still refuses a signature that is present and wrong', async () => {
    const wrong = await app.inject({
      method: 'GET',
      url: '/admin/files/plan',
      headers: { 'x-platform-signature': signHs256({ exp: nowSeconds() + 60, fileId: 'plan' }, 'wrong-secret-0123456789') },
    });
    expect(wrong.statusCode).toBe(401);
    const other = await app.inject({ method: 'GET', url: '/admin/files/plan', headers: { 'x-platform-signature': signature({ fileId: 'sheet' }) } });
    expect(other.statusCode).toBe(403);
  });
});

describeEachStore('signed callbacks under HEADER_BRAND=Shimo', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { headerBrand: 'Shimo' });
  });
  afterAll(() => app.close());

  it('reads X-Shimo-Signature and ignores X-Platform-Signature', async () => {
    const sig = signature({ fileId: 'plan' });
    const shimo = await app.inject({ method: 'GET', url: '/admin/files/plan', headers: { 'X-Shimo-Credential-Type': '3', 'X-Shimo-Signature': sig } });
    expect(shimo.statusCode).toBe(200);
    const platform = await app.inject({ method: 'GET', url: '/admin/files/plan', headers: { 'x-platform-signature': sig } });
    expect(platform.statusCode).toBe(401);
    expect(platform.json().error.message).toBe('this endpoint needs a platform signature in X-Shimo-Signature');
  });
});

function tamper(token: string, claims: Record<string, unknown>): string {
  const [head, body, sig] = token.split('.') as [string, string, string];
  const original = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
  return `${head}.${Buffer.from(JSON.stringify({ ...original, ...claims })).toString('base64url')}.${sig}`;
}

function algNone(claims: object): string {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${b64({ alg: 'none', typ: 'JWT', kid: config.appId })}.${b64(claims)}.`;
}
