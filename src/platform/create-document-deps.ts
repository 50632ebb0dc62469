import { mintUserToken } from '../auth/user-token.js';
import type { Config } from '../config.js';
import type { Directory } from '../directory/directory.js';
import type { OpenDatabase } from '../store/database.js';
import { sqlDocumentRecords } from '../store/document-records.js';
import { SqlDirectory } from '../store/sql-directory.js';
import type { CreateDocumentDeps } from './create-document.js';
import { PlatformClient } from './platform-client.js';

/** The platform client of the configuration; undefined when PLATFORM_API_URL is not set. */
export function platformClientFor(config: Config): PlatformClient | undefined {
  if (config.platformApiUrl === undefined) return undefined;
  return new PlatformClient({ apiUrl: config.platformApiUrl, credentials: { appId: config.appId, appSecret: config.appSecret } });
}

/** The create-document flow over the store, the configured platform and collab-host's own user tokens. */
export function createDocumentDeps(config: Config, store: OpenDatabase, directory: Directory = SqlDirectory.over(store)): CreateDocumentDeps {
  return {
    directory,
    records: sqlDocumentRecords(store.db),
    platform: platformClientFor(config),
    tokenFor: (userId) => mintUserToken(userId, config.tokenSecret, config.tokenTtlSeconds),
  };
}
