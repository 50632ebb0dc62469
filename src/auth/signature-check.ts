import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { verifySignature, type SignatureBinding, type SignatureClaims, type SignatureFailure } from './platform-signature.js';

/** What a request's platform signature header says, before any policy decides. */
export type SignatureCheck =
  | { status: 'valid'; claims: SignatureClaims }
  | { status: 'absent' }
  | { status: 'invalid'; failure: SignatureFailure };

/** Reads `X-{brand}-Signature` and verifies it against APP_ID/APP_SECRET and the request's binding. */
export function checkPlatformSignature(request: FastifyRequest, context: AppContext, binding: SignatureBinding): SignatureCheck {
  const header = request.headers[context.headers.signature];
  if (typeof header !== 'string' || header === '') return { status: 'absent' };
  const result = verifySignature(header, { appId: context.config.appId, appSecret: context.config.appSecret }, binding);
  return result.ok ? { status: 'valid', claims: result.claims } : { status: 'invalid', failure: result.failure };
}

/** A person-readable reason for each refusal code. */
export const SIGNATURE_FAILURE_MESSAGES: Record<SignatureFailure, string> = {
  malformed: 'the platform signature is malformed',
  algorithm: 'the platform signature must use HS256',
  signature: 'the platform signature does not verify',
  kid: 'the platform signature was made for another application',
  expired: 'the platform signature has expired',
  'missing-exp': 'the platform signature has no expiry',
  iat: 'the platform signature was issued more than 5 minutes from server time',
  'file-mismatch': 'the platform signature was made for another file',
  'user-mismatch': 'the platform signature was made for another user',
};
