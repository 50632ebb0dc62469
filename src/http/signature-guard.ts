import type { FastifyRequest } from 'fastify';
import type { AppContext } from './app-context.js';
import type { SignatureBinding, SignatureClaims } from '../auth/platform-signature.js';
import { checkPlatformSignature, signatureRefusal } from '../auth/signature-check.js';
import { refusalError } from './errors.js';
import { displayHeaderName } from './headers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified platform signature of a signed callback; undefined when accepted unsigned. */
    platformSignature: SignatureClaims | undefined;
  }
}

/**
 * An onRequest hook for the platform-signed callbacks (credential type 3): it runs before body and
 * query validation, so an unauthenticated caller learns nothing about the request's shape. The rules are
 * auth/signature-check.ts's `signatureRefusal`. A user token is not looked at: it never opens these endpoints.
 */
export function platformSignatureGuard(context: AppContext, bind: (request: FastifyRequest) => SignatureBinding = () => ({})) {
  const headerName = displayHeaderName(context.config.headerBrand, 'Signature');
  return async function requirePlatformSignature(request: FastifyRequest): Promise<void> {
    const header = request.headers[context.headers.signature];
    const { config } = context;
    const app = { appId: config.appId, appSecret: config.appSecret, previousAppSecret: config.previousSecrets.appSecret, maxLifetimeSeconds: config.signatureMaxLifetimeSeconds };
    const check = await checkPlatformSignature(typeof header === 'string' ? header : undefined, app, bind(request));
    const refusal = signatureRefusal(check, { required: config.signatureRequired, headerName });
    if (refusal) throw refusalError(refusal);
    request.platformSignature = check.status === 'valid' ? check.claims : undefined;
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
