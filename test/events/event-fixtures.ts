import type { FastifyInstance } from 'fastify';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import { TEST_CONFIG_OVERRIDES } from '../helpers/app.js';

/** Event bodies of interface part 6, built the way the platform sends them. */

const APP = { appId: TEST_CONFIG_OVERRIDES.appId as string, appSecret: TEST_CONFIG_OVERRIDES.appSecret as string };
const TOKEN_SECRET = TEST_CONFIG_OVERRIDES.tokenSecret as string;

export const tokenHeaders = (userId: string, ttlSeconds = 3600, now = Date.now()) => ({
  'x-platform-token': mintUserToken(userId, TOKEN_SECRET, ttlSeconds, now),
});
export const signedHeaders = (fileId: string) => ({
  'x-platform-credential-type': '3',
  'x-platform-signature': mintSignature(APP, { ttlSeconds: 240, fileId }),
});

export async function postEvent(
  app: FastifyInstance,
  kind: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ statusCode: number; json: () => unknown }> {
  const response = await app.inject({
    method: 'POST',
    url: '/events',
    headers: { 'content-type': 'application/json', 'x-platform-sdk-event': kind, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { statusCode: response.statusCode, json: () => response.json() };
}

export const commentCreate = (fileId: string, userId: string, comment: Record<string, unknown>) => ({
  kind: 'comment',
  type: 'comment',
  action: 'create',
  fileId,
  userId,
  comment,
});

export const mentionAt = (fileId: string, userId: string, type: string, object: Record<string, unknown>) => ({
  kind: 'mention_at',
  type,
  action: 'create',
  fileId,
  userId,
  ...object,
});

export const dateMention = (fileId: string, userId: string, action: string, data: Record<string, unknown>) => ({
  kind: 'mention',
  type: 'date_mention',
  action,
  fileId,
  userId,
  [`${action}Data`]: data,
});

export const fileContent = (fileId: string, userId: string, version: number, timestamp: number) => ({
  kind: 'fileContent',
  type: 'fileContent',
  action: 'update',
  fileId,
  userId,
  fileContent: { version, timestamp },
});

export const collaborator = (fileId: string, userId: string, action: 'enter' | 'leave', clientId: string, timestamp: number) => ({
  kind: 'collaborator',
  action,
  fileId,
  userId,
  collaboratorChanged: { clientId, timestamp },
});

export const revision = (fileId: string, userId: string, action: string, revisionId: number, extra: Record<string, unknown> = {}) => ({
  kind: 'revision',
  action,
  fileId,
  userId,
  revision: { revisionId, title: `v${revisionId}`, label: 'release', docHistoryId: `h${revisionId}`, timestamp: 1_709_280_000_000, ...extra },
});

export const systemCallbackError = (url: string, status: number) => ({
  kind: 'System',
  type: 'endpointCallback',
  appId: APP.appId,
  timestamp: 1_709_280_000_000,
  request: {
    headers: { Accept: 'application/json', 'X-Platform-Token': 'secret-user-token', 'X-Platform-Credential-Type': '0' },
    url,
    body: '',
  },
  response: { headers: {}, status, body: '{"error":"not found"}' },
  errorMessage: `request ${url} failed with status ${status}`,
});
