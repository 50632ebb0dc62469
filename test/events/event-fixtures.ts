import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../src/composition/app.js';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { defaultTokenResolver } from '../../src/auth/token-resolver.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import type { Config } from '../../src/config/config.js';
import type { EventItem } from '../../src/events/event-management.js';
import { EventPipeline } from '../../src/events/event-pipeline.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import type { NewEvent } from '../../src/store/events/event-log.js';
import type { FileInput } from '../../src/store/directory-writes/directory-writer.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { buildTestApp, makeTestConfig, TEST_CONFIG_OVERRIDES } from '../helpers/app.js';

/** An event as the intake hands it to the log: pending, zhang's, on the plan, its body `{ "key": key }`. */
export const newLogEvent = (key: string, fields: Partial<NewEvent> = {}): NewEvent => ({
  deliveryKey: key,
  kind: 'Collaborator',
  action: 'enter',
  fileId: 'plan',
  userId: 'zhang',
  credential: 'token',
  senderId: 'zhang',
  outcome: 'pending',
  problem: null,
  subject: null,
  receivedMs: 1_709_280_000_000,
  body: JSON.stringify({ key }),
  ...fields,
});

/** Event bodies of interface part 6, built the way the platform sends them. */

const APP = { appId: TEST_CONFIG_OVERRIDES.appId as string, appSecret: TEST_CONFIG_OVERRIDES.appSecret as string };
const TOKEN_SECRET = TEST_CONFIG_OVERRIDES.tokenSecret as string;

export const tokenHeaders = (userId: string, ttlSeconds = 3600, now = Date.now()) => ({
  'x-platform-token': mintUserToken(userId, TOKEN_SECRET, ttlSeconds, now),
});
export const signedHeaders = (fileId: string, userId?: string) => ({
  'x-platform-credential-type': '3',
  'x-platform-signature': mintSignature(APP, { ttlSeconds: 240, fileId, ...(userId === undefined ? {} : { userId }) }),
});

export async function postEvent(app: FastifyInstance, kind: string, body: unknown, headers: Record<string, string>): Promise<{ statusCode: number; json: () => unknown }> {
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

/**
 * An app whose own processor is off, and the pipeline a test drives instead (same configuration, same
 * store): `settle()` derives the effects of everything acknowledged so far, so a test reads them at once
 * without waiting on any clock. `now` is the pipeline's clock.
 */
export async function buildEventApp(
  store: OpenDatabase,
  overrides: Partial<Config> = {},
  deps: Partial<AppDeps> & { now?: () => number } = {},
): Promise<{ app: FastifyInstance; pipeline: EventPipeline; settle: () => Promise<void>; config: Config }> {
  const config = makeTestConfig(overrides);
  const { now, ...appDeps } = deps;
  const app = await buildTestApp(store, { ...overrides, events: { ...config.events, processor: false } }, appDeps);
  const pipeline = new EventPipeline({
    db: store.db,
    directory: deps.directory ?? SqlDirectory.over(store),
    resolveToken: deps.resolveToken ?? defaultTokenResolver(config.tokenSecret),
    config,
    ...(now ? { now } : {}),
  });
  return { app, pipeline, settle: () => pipeline.processor.drain(), config };
}

/** The management API key of the event tests. */
export const ADMIN_KEY = 'admin-key-0123456789abcdef';
export const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/** GET on the management API; fails the test unless it answers 200. */
export async function adminGet<T>(app: FastifyInstance, url: string): Promise<T> {
  const response = await app.inject({ method: 'GET', url, headers: admin });
  if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}: ${response.body}`);
  return response.json() as T;
}

/** An event as `GET /api/events` lists it. */
export type ListedEvent = Omit<EventItem, 'body'> & { body: Record<string, unknown> };

/** A document of the given team and creator, for tests that add one to the fixture directory. */
export function documentRecord(id: string, creatorId: string, teamId: string): FileInput {
  return {
    id,
    name: `Document ${id}`,
    type: 'documentPro',
    creatorId,
    teamId,
    createdAt: '2024-03-01T08:00:00Z',
    updatedAt: '2024-03-01T08:00:00Z',
    views: null,
    ext: null,
    downloadUrl: null,
    fullUrl: null,
    restrictions: { copy: true, export: true },
    status: 'active',
  };
}

/** Lets the event loop run what is waiting (a commit, a processor's step, their I/O) a few times. */
export async function turns(count = 20): Promise<void> {
  for (let index = 0; index < count; index += 1) await new Promise((resolve) => setImmediate(resolve));
}
