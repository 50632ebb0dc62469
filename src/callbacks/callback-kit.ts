import type { FastifyInstance, FastifyRequest } from 'fastify';
import { grantedPermissions, type AuditCredential } from '../audit/audit-trail.js';
import type { AppContext } from '../http/app-context.js';
import { userTokenGuard } from '../http/user-token-guard.js';
import { DirectoryService } from '../directory/directory-service.js';
import type { Permissions } from '../directory/types.js';

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
  if (!app.hasRequestDecorator('guest')) app.decorateRequest('guest', null);
  app.addHook(
    'onRequest',
    userTokenGuard({ tokenHeader: context.headers.token, resolveToken: context.resolveToken, directory: context.directory, guests: context.sharing.guests }),
  );
}

/**
 * Records an access decision on a file in the audit trail (buffered, never a statement per request): who
 * (`actorId`, null when the credential names no user), with which credential, the permissions decided
 * (none: refused), and the route that asked.
 */
export function recordAccess(
  context: AppContext,
  request: FastifyRequest,
  decision: { actorId: string | null; credential: AuditCredential; fileId: string; permissions: Permissions | null },
): void {
  context.audit.record({
    kind: 'file_access',
    actorId: decision.actorId,
    credential: decision.credential,
    fileId: decision.fileId,
    action: `${request.method} ${request.routeOptions.url ?? request.url}`,
    permissions: decision.permissions ? grantedPermissions(decision.permissions) : [],
    details: null,
  });
}
