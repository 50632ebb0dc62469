import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { userTokenGuard } from '../http/user-token-guard.js';
import { DirectoryService } from '../directory/directory-service.js';

/** The DirectoryService over the app's directory and configuration (stateless, cheap to make). */
export function directoryServiceFor(context: AppContext): DirectoryService {
  return new DirectoryService(context.directory, { watermarkTemplate: context.config.watermarkTemplate });
}

/**
 * Makes every route of the plugin a user-context callback: an `onRequest` hook checks the token header
 * before anything else (so an unauthenticated caller learns nothing about the request's shape) and sets
 * `request.viewer`. Missing, malformed, forged or expired tokens and deleted users are 401.
 */
export function requireUserToken(app: FastifyInstance, context: AppContext): void {
  if (!app.hasRequestDecorator('viewer')) app.decorateRequest('viewer', null as never);
  app.addHook(
    'onRequest',
    userTokenGuard({ tokenHeader: context.headers.token, resolveToken: context.resolveToken, directory: context.directory }),
  );
}
