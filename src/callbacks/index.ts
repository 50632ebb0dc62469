import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/app-context.js';
import { departmentRoutes } from './departments.js';
import { fileContentRoutes } from './file-content.js';
import { fileRoutes } from './files.js';
import { teamRoutes } from './teams.js';
import { userRoutes } from './users.js';

/**
 * The directory callbacks of the interface (4.1 user context, 4.2, 4.3) and the stored-content
 * download. Each module is its own encapsulated plugin, so its token hook covers only its own routes.
 */
export const directoryCallbacks: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  await app.register(fileRoutes, { context });
  await app.register(fileContentRoutes, { context });
  await app.register(userRoutes, { context });
  await app.register(teamRoutes, { context });
  await app.register(departmentRoutes, { context });
};
