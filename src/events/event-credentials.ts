import { epochSeconds } from '../auth/jwt.js';
import { OUTBOUND_SCOPES, verifySignature, type AppCredentials } from '../auth/platform-signature.js';
import { SIGNATURE_FAILURE_MESSAGES } from '../auth/signature-check.js';
import type { TokenResolver } from '../auth/token-resolver.js';
import type { CredentialPolicy } from './event-kinds.js';
import type { Authenticated } from './event-trust.js';

/**
 * How long after its expiry a user token still authenticates an event. The platform pushes an event
 * with the token the document was opened with; a long editing session or a late push must not lose the
 * event, while a token leaked long ago must not feed the log forever. The token must still be authentic.
 */
export const EXPIRED_TOKEN_GRACE_SECONDS = 7 * 24 * 3600;

export type CredentialOutcome = ({ ok: true } & Authenticated) | { ok: false; code: string; message: string };

export interface CredentialRules {
  app: AppCredentials;
  resolveToken: TokenResolver;
  /** SIGNATURE_REQUIRED: false lets a signed kind without any signature through (a wrong one never). */
  signatureRequired: boolean;
  /** Header names as the platform spells them, for messages. */
  tokenHeader: string;
  signatureHeader: string;
  now?: () => number;
}

export interface PresentedCredentials {
  policy: CredentialPolicy;
  /** The token header's value, when present. */
  token: string | undefined;
  /** The signature header's value, when present. */
  signature: string | undefined;
  /** The file the body names: a signature must have been made for it. */
  fileId: string | undefined;
}

/**
 * The credential rules of POST /events: token events need an authentic user token (expired within the
 * grace is accepted); FileContent and Collaborator carry the platform signature, bound to the body's file
 * (pushed with a user token instead, they are held to the token rules: its user acts, with the permission
 * the kind needs); System and unknown kinds accept either. A signature that is present but wrong is never
 * accepted. Every refusal is a 401 for the caller.
 */
export async function authenticateEvent(presented: PresentedCredentials, rules: CredentialRules): Promise<CredentialOutcome> {
  const token = presented.token === '' ? undefined : presented.token;
  if (presented.policy === 'token') {
    if (token === undefined) return refuse('token_missing', `this event needs a user token in ${rules.tokenHeader}`);
    return checkToken(token, rules);
  }
  const signature = presented.signature ?? '';
  const signed = signature !== '';
  // Either kind with a token, or a signed kind that came with a token and no signature: the token rules.
  if (token !== undefined && (presented.policy === 'either' || !signed)) return checkToken(token, rules);
  if (signed) {
    const checked = await verifySignature(
      signature,
      rules.app,
      { refusedScopes: OUTBOUND_SCOPES, ...(presented.fileId === undefined ? {} : { fileId: presented.fileId }) },
      rules.now?.(),
    );
    // A signature made for one user binds the push to that user (event-trust.ts), not just to the file.
    if (checked.ok) return { ok: true, credential: 'signature', ...(checked.claims.userId === undefined ? {} : { signedUserId: checked.claims.userId }) };
    return refuse('signature_invalid', SIGNATURE_FAILURE_MESSAGES[checked.failure] ?? 'the platform signature is not valid');
  }
  if (!rules.signatureRequired) return { ok: true, credential: 'unsigned' };
  return presented.policy === 'either'
    ? refuse('credential_missing', `this event needs ${rules.tokenHeader} or ${rules.signatureHeader}`)
    : refuse('signature_missing', `this event needs the platform signature in ${rules.signatureHeader}`);
}

async function checkToken(token: string, rules: CredentialRules): Promise<CredentialOutcome> {
  const result = await rules.resolveToken(token);
  if (result.ok) return { ok: true, credential: 'token', tokenUserId: result.userId, ...(result.linkId === undefined ? {} : { guestLinkId: result.linkId }) };
  if (result.reason === 'expired' && result.userId !== undefined) {
    const expiredFor = result.expiresAt === undefined ? 0 : epochSeconds(rules.now?.()) - result.expiresAt;
    if (expiredFor <= EXPIRED_TOKEN_GRACE_SECONDS) return { ok: true, credential: 'token-expired', tokenUserId: result.userId };
    return refuse('token_expired', 'the user token expired more than 7 days ago');
  }
  if (result.reason === 'not_yet_valid') return refuse('token_not_yet_valid', 'the user token is not valid yet (its nbf is in the future)');
  return result.reason === 'malformed' ? refuse('token_malformed', 'the user token is malformed') : refuse('token_invalid', 'the user token is not valid');
}

function refuse(code: string, message: string): CredentialOutcome {
  return { ok: false, code, message };
}
