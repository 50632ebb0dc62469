import { GuestAccess } from '../auth/guest-access.js';
import { GuestSessions } from '../auth/guest-sessions.js';
import type { Config } from '../config/config.js';
import type { Directory } from '../directory/directory.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { sqlShareLinks } from '../store/sharing/share-links.js';

/** Share links over the store: the link store, guest token requests and the guests' per-request check. */
export function sharingFor(config: Config, store: OpenDatabase, directory: Directory) {
  const links = sqlShareLinks(store.db);
  return {
    links,
    sessions: new GuestSessions(links, { tokenSecret: config.tokenSecret, tokenTtlSeconds: config.tokenTtlSeconds }),
    guests: new GuestAccess(links, directory),
  };
}
