import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadLinks } from '../../src/auth/download-link.js';
import { webhookSecrets } from '../../src/auth/key-rotation.js';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import type { Config } from '../../src/config/config.js';
import { OutboxWorker } from '../../src/events/outbox-worker.js';
import { signWebhookBody, verifyWebhookSignature } from '../../src/events/webhook-signature.js';
import { buildTestApp, makeTestConfig } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { seedWithExtras } from '../directory/fixture-extras.js';
import { commentCreate, postEvent, tokenHeaders } from '../events/event-fixtures.js';
import { startReceiver, waitFor } from '../events/webhook-receiver.js';

/**
 * A rotation as an operator runs it: the old keys become *_PREVIOUS beside the new ones (credentials made
 * with the old keys keep working), then the *_PREVIOUS variables are removed (they stop working).
 */
const OLD = { tokenSecret: 'old-token-secret-0123456789', appSecret: 'old-app-secret-0123456789' };
const NEW = { tokenSecret: 'new-token-secret-0123456789', appSecret: 'new-app-secret-0123456789' };
const noPrevious = { tokenSecret: undefined, appSecret: undefined, notifyWebhookSecret: undefined };
const during: Partial<Config> = { ...NEW, previousSecrets: { ...noPrevious, ...OLD } };
const after: Partial<Config> = { ...NEW, previousSecrets: noPrevious };

describeEachStore('key rotation', (store) => {
  let rotating: FastifyInstance;
  let rotated: FastifyInstance;
  beforeAll(async () => {
    await seedWithExtras(store().db);
    rotating = await buildTestApp(store(), during);
    rotated = await buildTestApp(store(), after);
  });
  afterAll(async () => {
    await rotating.close();
    await rotated.close();
  });

  it('a user token made with TOKEN_SECRET_PREVIOUS works during the rotation and fails after it', async () => {
    const headers = { 'x-platform-token': mintUserToken('alice', OLD.tokenSecret, 3600) };
    const whileRotating = await rotating.inject({ method: 'GET', url: '/users/current/info', headers });
    expect(whileRotating.statusCode).toBe(200);
    expect(whileRotating.json()).toMatchObject({ id: 'alice' });
    const afterwards = await rotated.inject({ method: 'GET', url: '/users/current/info', headers });
    expect(afterwards.statusCode).toBe(401);
    expect(afterwards.json().error.code).toBe('token_forged');
    const fresh = { 'x-platform-token': mintUserToken('alice', NEW.tokenSecret, 3600) };
    for (const app of [rotating, rotated]) expect((await app.inject({ method: 'GET', url: '/users/current/info', headers: fresh })).statusCode).toBe(200);
  });

  it('a platform signature made with APP_SECRET_PREVIOUS works during the rotation and fails after it', async () => {
    const signature = mintSignature({ appId: 'test-app', appSecret: OLD.appSecret }, { ttlSeconds: 120, fileId: 'manual' });
    const request = { method: 'GET' as const, url: '/admin/files/manual', headers: { 'x-platform-signature': signature } };
    const whileRotating = await rotating.inject(request);
    expect(whileRotating.statusCode).toBe(200);
    expect(whileRotating.json()).toMatchObject({ id: 'manual' });
    const afterwards = await rotated.inject(request);
    expect(afterwards.statusCode).toBe(401);
    expect(afterwards.json().error.code).toBe('signature_invalid');
  });

  it('a download link made with TOKEN_SECRET_PREVIOUS works during the rotation and fails after it; new links use the new key', async () => {
    const local = (url: string) => url.replace('http://collab.test', '');
    const oldLink = local(new DownloadLinks(OLD.tokenSecret, 'http://collab.test').linkFor('manual'));
    expect((await rotating.inject({ method: 'GET', url: oldLink })).statusCode).toBe(200);
    const refused = await rotated.inject({ method: 'GET', url: oldLink });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('link_invalid');
    const newLink = local(new DownloadLinks([NEW.tokenSecret, OLD.tokenSecret], 'http://collab.test').linkFor('manual'));
    expect((await rotated.inject({ method: 'GET', url: newLink })).statusCode).toBe(200);
  });
});

describeEachStore('webhook key rotation', (store) => {
  const secrets = { current: 'webhook-secret-new-0123', previous: 'webhook-secret-old-0123' };
  let onNew: Awaited<ReturnType<typeof startReceiver>>;
  let onOld: Awaited<ReturnType<typeof startReceiver>>;
  let app: FastifyInstance;
  beforeAll(async () => {
    const { seedDirectory } = await import('../helpers/directory-fixture.js');
    await seedDirectory(store().db);
    onNew = await startReceiver(secrets.current);
    onOld = await startReceiver(secrets.previous);
    app = await buildTestApp(store(), { notifyWebhookUrls: [onNew.url, onOld.url], notifyWebhookSecret: secrets.current });
  });
  afterAll(async () => {
    await app.close();
    await onNew.close();
    await onOld.close();
  });

  it('during a rotation every notification carries one signature per secret, and receivers on either secret accept it', async () => {
    const config = makeTestConfig({ notifyWebhookSecret: secrets.current, previousSecrets: { ...noPrevious, notifyWebhookSecret: secrets.previous } });
    const response = await postEvent(app, 'Comment', commentCreate('plan', 'zhang', { guid: 'rotation-1', content: 'hi' }), tokenHeaders('zhang'));
    expect(response.statusCode).toBe(200);
    const worker = new OutboxWorker(store(), { secret: webhookSecrets(config), pollMs: 20 }).start();
    try {
      const [toNew, toOld] = await Promise.all(
        [onNew, onOld].map((receiver) => waitFor(async () => receiver.received.find((r) => r.raw.includes('rotation-1')), 10_000, 'a delivery')),
      );
      expect(toNew!.headers['x-collab-signature']).toMatch(/^sha256=[0-9a-f]{64}, sha256=[0-9a-f]{64}$/);
      expect(toNew!.signatureValid).toBe(true);
      expect(toOld!.signatureValid).toBe(true);
    } finally {
      await worker.stop();
    }
  });
});

describe('webhook signature header', () => {
  it('is one entry outside a rotation (as before) and one per secret during it, current first', () => {
    const body = '{"id":"n1"}';
    expect(signWebhookBody(body, 'only-secret')).toMatch(/^sha256=[0-9a-f]{64}$/);
    const both = signWebhookBody(body, ['new-secret', 'old-secret']);
    expect(both).toBe(`${signWebhookBody(body, 'new-secret')}, ${signWebhookBody(body, 'old-secret')}`);
    expect(verifyWebhookSignature(body, both, 'old-secret')).toBe(true);
    expect(verifyWebhookSignature(body, both, 'new-secret')).toBe(true);
    expect(verifyWebhookSignature(body, both, 'third-secret')).toBe(false);
    expect(verifyWebhookSignature('{"id":"n2"}', both, 'new-secret')).toBe(false);
  });

  it('is signed with NOTIFY_WEBHOOK_SECRET_PREVIOUS only while it is set', () => {
    expect(webhookSecrets(makeTestConfig())).toEqual([]);
    expect(webhookSecrets(makeTestConfig({ notifyWebhookSecret: 'a-secret' }))).toEqual(['a-secret']);
    expect(webhookSecrets(makeTestConfig({ notifyWebhookSecret: 'a', previousSecrets: { ...noPrevious, notifyWebhookSecret: 'b' } }))).toEqual(['a', 'b']);
  });
});
