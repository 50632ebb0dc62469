/**
 * collab-host as a library: what a host application needs to serve the callback interface over its own
 * directory and tokens. `examples/library-use/` shows it end to end.
 */
export { buildApp, type AppDeps } from './composition/app.js';
export { loadConfig, testConfig, ConfigError, type Config } from './config/config.js';
export { openDatabase, type OpenDatabase, type OpenDatabaseOptions } from './store/connection/database.js';
export { startServer, type RunningServer } from './composition/server.js';
export type { Directory, FileOrder, FileWithGrant, StoredContent } from './directory/directory.js';
export type { DirectorySearch, SearchQuery, DepartmentHit } from './directory/search-port.js';
export type * from './directory/types.js';
export { ROLES } from './directory/types.js';
export { effectiveRole, permissionsFor, roleFromRank, roleRank } from './directory/permissions.js';
export { nameKeys } from './directory/search-keys.js';
export { rankMatches } from './directory/search-ranking.js';
export { formatTime } from './directory/time.js';
export type { TokenResolver } from './auth/token-resolver.js';
export { mintUserToken, verifyUserToken } from './auth/user-token.js';
export { mintSignature, mintLicenseSignature, verifySignature } from './auth/platform-signature.js';
export { PlatformClient, type PlatformUser, type PlatformClientOptions } from './platform/platform-client.js';
export { PlatformError, type PlatformFailure } from './platform/platform-errors.js';
export { seatTasksListener, type SeatDirectoryListener, type SeatDiff } from './platform/seat-tasks.js';
