import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { displayHeaderName } from '../http/headers.js';
import { HttpError, unauthorized } from '../http/errors.js';
import type { SignatureBinding, SignatureClaims } from './platform-signature.js';
import { checkPlatformSignature, SIGNATURE_FAILURE_CODES, SIGNATURE_FAILURE_MESSAGES, SIGNATURE_FORBIDDEN } from './signature-check.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified platform signature of a signed callback; undefined when accepted unsigned. */
    platformSignature: SignatureClaims | undefined;
  }
}

/**
 * An onRequest hook for the platform-signed callbacks (credential type 3): it runs before body and
 * query validation, so an unauthenticated caller learns nothing about the request's shape.
 *
 * - valid signature bound to this request: accepted;
 * - no signature: 401 `signature_missing`, unless SIGNATURE_REQUIRED=false (then accepted unsigned);
 * - a signature that is present but wrong: always refused, whatever SIGNATURE_REQUIRED says:
 *   401 when it is not a valid signature of this application, 403 when it is valid but was made for
 *   another file or user.
 *
 * A user token is not looked at: it never opens these endpoints.
 */
export function platformSignatureGuard(context: AppContext, bind: (request: FastifyRequest) => SignatureBinding = () => ({})) {
  const headerName = displayHeaderName(context.config.headerBrand, 'Signature');
  return async function requirePlatformSignature(request: FastifyRequest): Promise<void> {
    const check = await checkPlatformSignature(request, context, bind(request));
    if (check.status === 'valid') {
      request.platformSignature = check.claims;
      return;
    }
    if (check.status === 'absent') {
      if (!context.config.signatureRequired) {
        request.platformSignature = undefined;
        return;
      }
      throw unauthorized(`this endpoint needs a platform signature in ${headerName}`, 'signature_missing');
    }
    const status = SIGNATURE_FORBIDDEN.has(check.failure) ? 403 : 401;
    throw new HttpError(status, SIGNATURE_FAILURE_CODES[check.failure], SIGNATURE_FAILURE_MESSAGES[check.failure]);
  };
}

/** The path's fileId as the signature binding (`POST /files/{fileId}/url`, `GET /admin/files/{fileId}`). */
export function bindPathFileId(request: FastifyRequest): SignatureBinding {
  return { fileId: stringOr((request.params as Record<string, unknown>).fileId) };
}

/** The path's fileId and the query's userId (`GET /admin/files/{fileId}/by-user-id?userId=`). */
export function bindPathFileIdAndQueryUserId(request: FastifyRequest): SignatureBinding {
  const userId = (request.query as Record<string, unknown>).userId;
  // Absent: no binding here, and the query schema answers 400 for the missing parameter.
  return userId === undefined ? bindPathFileId(request) : { ...bindPathFileId(request), userId: stringOr(userId) };
}

// A repeated or absent parameter binds to '' so that no signature matches it.
function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
