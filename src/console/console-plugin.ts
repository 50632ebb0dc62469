import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../http/app-context.js';
import { HttpError } from '../http/errors.js';

import { DEFAULT_CONSOLE_DIR, serveConsoleFiles } from './console-files.js';
import { sessionRoutes } from './session-routes.js';

/**
 * The operator console (docs/console.md): the built front end under /console/ and its session routes.
 * Off (404 `console_disabled`) without ADMIN_API_KEY. The page reads and writes through /api, whose guard
 * accepts the console's session (src/http/admin-key-guard.ts).
 */
export async function consoleApp(app: FastifyInstance, options: { context: AppContext; dir?: string }): Promise<void> {
  const sessions = options.context.consoleSessions;
  if (sessions === undefined) {
    const off = async () => {
      throw new HttpError(404, 'console_disabled', 'the console is off: set ADMIN_API_KEY to turn it on');
    };
    app.all('/console', { schema: { hide: true } }, off);
    app.all('/console/*', { schema: { hide: true } }, off);
    return;
  }
  sessionRoutes(app, sessions, options.context, { platformConfigured: options.context.config.platformApiUrl !== undefined });
  await serveConsoleFiles(app, options.dir ?? DEFAULT_CONSOLE_DIR);
}
