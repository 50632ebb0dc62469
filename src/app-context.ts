import type { TokenResolver } from './auth/token-resolver.js';
import type { Config } from './config.js';
import type { Directory } from './directory/directory.js';
import type { PlatformHeaders } from './http/headers.js';
import type { OpenDatabase } from './store/database.js';

/** What every route module is given: built once in `buildApp`, read-only afterwards. */
export interface AppContext {
  config: Config;
  /** collab-host's own database: events, reminders, the outbox, replay bookkeeping, management writes. */
  store: OpenDatabase;
  /** Where directory facts come from: the store's SQL directory, or the host application's own. */
  directory: Directory;
  headers: PlatformHeaders;
  resolveToken: TokenResolver;
}
