import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/app-context.js';
import { adminKeyGuard } from '../http/admin-key-guard.js';
import { contentManageRoutes } from './content-routes.js';
import { accessRoutes } from './access-routes.js';
import { auditManagementWrites, auditRoutes } from './audit-routes.js';
import { directoryBrowseRoutes } from './directory-browse-routes.js';
import { directoryManageRoutes } from './directory-routes.js';
import { documentManageRoutes } from './document-routes.js';
import { platformManageRoutes } from './platform-routes.js';
import { syncRunRoutes } from './sync-runs-routes.js';
import { eventManageRoutes } from './events-routes.js';
import { tokenManageRoutes } from './token-routes.js';
import { notificationRoutes } from './notification-routes.js';
import { shareLinkManageRoutes } from './share-link-routes.js';

/**
 * The management API for the integrator's own systems, registered under `/api`: every route needs
 * `Authorization: Bearer ADMIN_API_KEY` (checked before anything else); without ADMIN_API_KEY the API is
 * off and answers 404 `admin_api_disabled`. It manages the built-in directory (the store's tables).
 */
export const manageApi: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', adminKeyGuard(context.config.adminApiKey, context.consoleSessions, context));
  app.addHook('onResponse', auditManagementWrites(context));
  await app.register(directoryManageRoutes, { context });
  await app.register(tokenManageRoutes, { context });
  await app.register(documentManageRoutes, { context });
  await app.register(platformManageRoutes, { context });
  await app.register(syncRunRoutes, { context });
  await app.register(contentManageRoutes, { context });
  await app.register(accessRoutes, { context });
  await app.register(directoryBrowseRoutes, { context });
  await app.register(eventManageRoutes, { context });
  await app.register(auditRoutes, { context });
  await app.register(notificationRoutes, { context });
  await app.register(shareLinkManageRoutes, { context });
};
