import { OUTBOUND_SCOPES, verifySignature, type AppCredentials, type SignatureBinding, type SignatureClaims, type SignatureFailure } from './platform-signature.js';
import type { AuthRefusal } from './refusal.js';

/** What a request's platform signature header says, before any policy decides. */
export type SignatureCheck = { status: 'valid'; claims: SignatureClaims } | { status: 'absent' } | { status: 'invalid'; failure: SignatureFailure };

/**
 * Verifies the value of a request's `X-{brand}-Signature` header (undefined when it is not sent) against
 * APP_ID/APP_SECRET (or APP_SECRET_PREVIOUS during a key rotation) and the request's binding.
 * Signatures that collab-host minted for the platform API or a browser (OUTBOUND_SCOPES) are refused.
 */
export async function checkPlatformSignature(header: string | undefined, app: AppCredentials, binding: SignatureBinding): Promise<SignatureCheck> {
  if (header === undefined || header === '') return { status: 'absent' };
  const result = await verifySignature(header, app, { refusedScopes: OUTBOUND_SCOPES, ...binding });
  return result.ok ? { status: 'valid', claims: result.claims } : { status: 'invalid', failure: result.failure };
}

/** A person-readable reason for each refusal code. */
export const SIGNATURE_FAILURE_MESSAGES: Record<SignatureFailure, string> = {
  malformed: 'the platform signature is malformed',
  algorithm: 'the platform signature must use HS256',
  signature: 'the platform signature does not verify',
  kid: 'the platform signature was made for another application',
  expired: 'the platform signature has expired',
  lifetime: 'the platform signature lives longer than SIGNATURE_MAX_LIFETIME allows (its exp is too far ahead)',
  'missing-exp': 'the platform signature has no expiry',
  iat: 'the platform signature was issued more than 5 minutes from server time',
  scope: 'this signature was issued by collab-host for the platform API or the editor, not by the platform',
  'file-mismatch': 'the platform signature was made for another file',
  'user-mismatch': 'the platform signature was made for another user',
};

/** The error code of each refusal, as the JSON error carries it. */
export const SIGNATURE_FAILURE_CODES: Record<SignatureFailure, string> = {
  malformed: 'signature_malformed',
  algorithm: 'signature_algorithm',
  signature: 'signature_invalid',
  kid: 'signature_wrong_app',
  expired: 'signature_expired',
  lifetime: 'signature_lifetime',
  'missing-exp': 'signature_no_expiry',
  iat: 'signature_iat_skew',
  scope: 'signature_wrong_scope',
  'file-mismatch': 'signature_other_file',
  'user-mismatch': 'signature_other_user',
};

/** Refusals of a signature that is genuine but made for another resource: 403, the rest 401. */
export const SIGNATURE_FORBIDDEN: ReadonlySet<SignatureFailure> = new Set(['file-mismatch', 'user-mismatch']);

/**
 * The policy of the platform-signed callbacks (credential type 3) over a check:
 * - a valid signature bound to this request: accepted;
 * - no signature: 401 `signature_missing`, unless SIGNATURE_REQUIRED=false (then accepted unsigned);
 * - a signature that is present but wrong: always refused, whatever SIGNATURE_REQUIRED says:
 *   401 when it is not a valid signature of this application, 403 when it is valid but was made for
 *   another file or user.
 * Returns the refusal, or undefined when the request may go on.
 */
export function signatureRefusal(check: SignatureCheck, options: { required: boolean; headerName: string }): AuthRefusal | undefined {
  if (check.status === 'valid') return undefined;
  if (check.status === 'absent') {
    if (!options.required) return undefined;
    return { status: 401, code: 'signature_missing', message: `this endpoint needs a platform signature in ${options.headerName}` };
  }
  return {
    status: SIGNATURE_FORBIDDEN.has(check.failure) ? 403 : 401,
    code: SIGNATURE_FAILURE_CODES[check.failure],
    message: SIGNATURE_FAILURE_MESSAGES[check.failure],
  };
}
