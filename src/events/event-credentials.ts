import type { SignatureCheck } from '../auth/signature-check.js';
import type { TokenResolver } from '../auth/token-resolver.js';
import { epochSeconds } from '../auth/jwt.js';
import type { CredentialPolicy } from './event-kinds.js';

/**
 * How long after its expiry a user token still authenticates an event. The platform pushes an event
 * with the token the document was opened with; a long editing session or a late push must not lose the
 * event, while a token leaked long ago must not feed the log forever. The token must still be authentic.
 */
export const EXPIRED_TOKEN_GRACE_SECONDS = 7 * 24 * 3600;

/** How the event was authenticated; stored with it. */
export type EventCredential = 'token' | 'token-expired' | 'signature' | 'unsigned';

export type CredentialOutcome =
  | { ok: true; credential: EventCredential; tokenUserId?: string }
  | { ok: false; code: string; message: string };

export interface CredentialInput {
  policy: CredentialPolicy;
  /** The `X-{brand}-Token` header, when present. */
  token: string | undefined;
  /** The platform signature, already verified against the body's fileId. */
  signature: SignatureCheck;
  /** Names of the headers, for messages. */
  tokenHeader: string;
  signatureHeader: string;
  signatureRequired: boolean;
  resolveToken: TokenResolver;
  signatureMessage: (check: Extract<SignatureCheck, { status: 'invalid' }>) => string;
  now?: number;
}

/**
 * The credential rules of POST /events: token events need an authentic user token (expired within the
 * grace is accepted); FileContent and Collaborator need the platform signature (with SIGNATURE_REQUIRED=false
 * a missing one is accepted, a wrong one never); System and unknown kinds accept either.
 */
export async function authenticateEvent(input: CredentialInput): Promise<CredentialOutcome> {
  const token = input.token === '' ? undefined : input.token;
  if (input.policy === 'token') {
    if (token === undefined) return refuse('token_missing', `this event needs a user token in ${input.tokenHeader}`);
    return checkToken(token, input);
  }
  if (input.policy === 'either' && token !== undefined) return checkToken(token, input);
  const signature = input.signature;
  if (signature.status === 'valid') return { ok: true, credential: 'signature' };
  if (signature.status === 'invalid') return refuse('signature_invalid', input.signatureMessage(signature));
  if (!input.signatureRequired) return { ok: true, credential: 'unsigned' };
  return input.policy === 'either'
    ? refuse('credential_missing', `this event needs ${input.tokenHeader} or ${input.signatureHeader}`)
    : refuse('signature_missing', `this event needs the platform signature in ${input.signatureHeader}`);
}

async function checkToken(token: string, input: CredentialInput): Promise<CredentialOutcome> {
  const result = await input.resolveToken(token);
  if (result.ok) return { ok: true, credential: 'token', tokenUserId: result.userId };
  if (result.reason === 'expired' && result.userId !== undefined) {
    const expiredFor = result.expiresAt === undefined ? 0 : epochSeconds(input.now) - result.expiresAt;
    if (expiredFor <= EXPIRED_TOKEN_GRACE_SECONDS) return { ok: true, credential: 'token-expired', tokenUserId: result.userId };
    return refuse('token_expired', 'the user token expired more than 7 days ago');
  }
  return result.reason === 'malformed'
    ? refuse('token_malformed', 'the user token is malformed')
    : refuse('token_invalid', 'the user token is not valid');
}

function refuse(code: string, message: string): CredentialOutcome {
  return { ok: false, code, message };
}
