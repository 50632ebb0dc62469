import { mintUserToken } from '../auth/user-token.js';
import type { Config } from '../config/config.js';
import { userUuid } from './api-signature.js';
import { PlatformClient, type PlatformUser } from './platform-client.js';

/** The platform client of the configuration; undefined when PLATFORM_API_URL is not set. */
export function platformClientFor(config: Config): PlatformClient | undefined {
  if (config.platformApiUrl === undefined) return undefined;
  return new PlatformClient({
    apiUrl: config.platformApiUrl,
    credentials: { appId: config.appId, appSecret: config.appSecret },
    brand: config.headerBrand,
    timeoutMs: config.platform.timeoutMs,
    ...(config.platform.callbackVersion === undefined ? {} : { callbackVersion: config.platform.callbackVersion }),
  });
}

/**
 * A user's credentials for a platform call: a collab-host user token (the platform sends it back on the
 * document's callbacks) and, with callback version v2, the user's uuid.
 */
export function platformUserFor(config: Config): (userId: string) => PlatformUser {
  return (userId) => ({
    token: mintUserToken(userId, config.tokenSecret, config.tokenTtlSeconds),
    ...(config.platform.callbackVersion === 'v2' ? { uuid: userUuid(userId) } : {}),
  });
}
