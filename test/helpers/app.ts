import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/composition/app.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import { testConfig, type Config } from '../../src/config/config.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';

/** The test configuration: fixed secrets, signatures required, the default brand. */
export const TEST_CONFIG_OVERRIDES: Partial<Config> = {
  appId: 'test-app',
  appSecret: 'test-app-secret-0123456789',
  tokenSecret: 'test-token-secret-0123456789',
  publicUrl: 'http://collab.test',
  fileUrlTemplate: 'http://oa.test/files/{fileId}',
};

export function makeTestConfig(overrides: Partial<Config> = {}): Config {
  return testConfig({ ...TEST_CONFIG_OVERRIDES, ...overrides });
}

/** An app over the given store, logging off, ready for `app.inject`. Close it in afterAll. */
export async function buildTestApp(store: OpenDatabase, overrides: Partial<Config> = {}, deps: Partial<AppDeps> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ config: makeTestConfig(overrides), store, logger: false, ...deps });
  await app.ready();
  return app;
}

/** A valid user token for the test configuration (or the given one). */
export function tokenFor(userId: string, config: Config = makeTestConfig(), ttlSeconds = 3600): string {
  return mintUserToken(userId, config.tokenSecret, ttlSeconds);
}

/** Headers of a user-context callback under the default brand. */
export function asUser(userId: string, config?: Config): Record<string, string> {
  return { 'x-platform-token': tokenFor(userId, config) };
}
