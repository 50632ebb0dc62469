import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/app-context.js';
import { platformFileRoutes } from './platform-file-routes.js';
import { platformLicenseRoutes } from './platform-license-routes.js';

/**
 * `/api/platform/…`: the platform API an integrator's backend uses, through collab-host's client
 * (docs/platform.md): document calls on behalf of a user who may make them, the license family, seats,
 * and the seat task queue. 503 `platform_not_configured` without PLATFORM_API_URL.
 */
export const platformManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  await app.register(platformFileRoutes, { context });
  await app.register(platformLicenseRoutes, { context });
};
