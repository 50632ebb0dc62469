import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/app-context.js';
import { adminCallbacks } from './admin.js';
import { departmentRoutes } from './departments.js';
import eventCallbacks from './events.js';
import { fileContentRoutes } from './file-content.js';
import { fileRoutes } from './files.js';
import { searchRoutes } from './search.js';
import { shareLinkTokenRoutes } from './share-link-token.js';
import { teamRoutes } from './teams.js';
import { userRoutes } from './users.js';

/**
 * Every route the platform calls, registered from this one place: the directory callbacks (4.1 user
 * context, 4.2, 4.3) and the stored-content download, the signed admin callbacks, the share-link token
 * exchange, the @-search and the event intake. Each module is its own encapsulated plugin, so its token or
 * signature hook covers only its own routes. A new callback module is registered here.
 */
export const callbackRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  await app.register(fileRoutes, { context });
  await app.register(fileContentRoutes, { context });
  await app.register(userRoutes, { context });
  await app.register(teamRoutes, { context });
  await app.register(departmentRoutes, { context });
  await app.register(adminCallbacks, { context });
  await app.register(shareLinkTokenRoutes, { context });
  await app.register(searchRoutes, { context });
  await app.register(eventCallbacks, { context });
};
