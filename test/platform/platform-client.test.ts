import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/auth/platform-signature.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { PlatformError } from '../../src/platform/platform-errors.js';
import { closedPortUrl, decodeJwt, StandInPlatform } from './stand-in-platform.js';

const credentials = { appId: 'test-app', appSecret: 'test-app-secret-0123456789' };

describe('PlatformClient.createDocument against a stand-in platform', () => {
  const platform = new StandInPlatform();
  let client: PlatformClient;

  beforeAll(async () => {
    await platform.start();
    client = new PlatformClient({ apiUrl: platform.url, credentials, timeoutMs: 500 });
  });
  afterAll(() => platform.stop());
  beforeEach(() => {
    platform.calls.length = 0;
  });

  it('posts {type, fileId} to /sdk/v2/api/files with appId, a license signature and the token; 204 is success', async () => {
    await expect(client.createDocument({ fileId: 'doc-1', type: 'documentPro', token: 'user-token-1' })).resolves.toBeUndefined();
    expect(platform.calls).toHaveLength(1);
    const call = platform.calls[0]!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/sdk/v2/api/files');
    expect(call.contentType).toMatch(/^application\/json/);
    expect(call.body).toEqual({ type: 'documentPro', fileId: 'doc-1' });
    expect(call.query.get('appId')).toBe('test-app');
    expect(call.query.get('token')).toBe('user-token-1');

    const signature = call.query.get('signature')!;
    expect(verifySignature(signature, credentials).ok).toBe(true);
    const { header, claims } = decodeJwt(signature);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: 'test-app' });
    expect(claims.scope).toBe('license');
    const now = Math.floor(Date.now() / 1000);
    expect(Math.abs((claims.iat as number) - now)).toBeLessThanOrEqual(2);
    // exp at most 4 minutes ahead (the platform refuses 5 minutes or more)
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(240);
    expect(claims.exp as number).toBeGreaterThan(now);
  });

  it('mints a fresh signature for every call (license signatures are single use)', async () => {
    // Back to back, within one second: the same claims but for a nonce, and still three distinct texts.
    await client.createDocument({ fileId: 'a', type: 'document', token: 't' });
    await client.createDocument({ fileId: 'b', type: 'document', token: 't' });
    await client.createDocument({ fileId: 'c', type: 'document', token: 't' });
    const signatures = platform.calls.map((call) => call.query.get('signature'));
    expect(new Set(signatures).size).toBe(3);
  });

  it('turns 400 with 70001 into a clear error naming the code', async () => {
    platform.answerNext({ kind: 'error', status: 400, body: { errorCode: 70001, error: 'invalid type' } });
    const error = await client.createDocument({ fileId: 'x', type: 'nope', token: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ failure: 'refused', status: 400, platformCode: '70001' });
    expect((error as Error).message).toBe('the platform refused the request: platform error 70001 (bad parameters): invalid type');
  });

  it('turns a 409-style 70012 into "file id already exists"', async () => {
    platform.answerNext({ kind: 'error', status: 409, body: { code: 70012, message: 'file exists' } });
    const error = await client.createDocument({ fileId: 'x', type: 'document', token: 't' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'refused', status: 409, platformCode: '70012' });
    expect((error as Error).message).toContain('70012 (file id already exists)');
  });

  it('names the HTTP status when the error body has no code', async () => {
    platform.answerNext({ kind: 'error', status: 500, body: 'oops' });
    const error = await client.createDocument({ fileId: 'x', type: 'document', token: 't' }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('the platform refused the request: HTTP 500: oops');
  });

  it('gives up on a platform that never answers, after the time-out, and says so', async () => {
    platform.answerNext({ kind: 'hang' });
    const started = Date.now();
    const error = await client.createDocument({ fileId: 'x', type: 'document', token: 'secret-token' }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toMatchObject({ failure: 'timeout' });
    expect((error as Error).message).toBe(`the platform did not answer ${platform.url}/sdk/v2/api/files within 500 ms`);
  });

  it('reports a refused connection without hanging and without leaking the token or signature', async () => {
    const down = new PlatformClient({ apiUrl: await closedPortUrl(), credentials, timeoutMs: 2000 });
    const error = await down.createDocument({ fileId: 'x', type: 'document', token: 'secret-token' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'unreachable' });
    expect((error as Error).message).toMatch(/^could not reach the platform at http:\/\/127\.0\.0\.1:\d+\/sdk\/v2\/api\/files: ECONNREFUSED$/);
  });
});
