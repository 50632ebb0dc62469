import { epochSeconds, verifyHs256, type AppCredentials } from '../jwt.js';

/** An answer of the simulated API: a status, and a JSON body, a text body or none (204). */
export interface SimAnswer {
  status: number;
  body?: unknown;
  text?: string;
  contentType?: string;
}

/**
 * The simulator's error codes, answered as `{ code, message }`. 70001, 70012 and 70013 are the platform's
 * own (interface 4.8, 7); no source shows the platform's codes for credential failures, so 70002-70005
 * and 70014 are the simulator's.
 */
export const SIMULATOR_ERRORS = {
  badParameters: { status: 400, code: 70001 },
  unknownApp: { status: 401, code: 70002 },
  badSignature: { status: 401, code: 70003 },
  signatureTime: { status: 401, code: 70004 },
  signatureReplayed: { status: 401, code: 70005 },
  fileExists: { status: 409, code: 70012 },
  fileMissing: { status: 404, code: 70013 },
  memberLimit: { status: 403, code: 70014 },
} as const;

/** A refusal: thrown by any check, answered by the simulator's router as `{ code, message }`. */
export class Refusal extends Error {
  constructor(readonly answer: SimAnswer) {
    super('refused');
  }
}

export function refuse(error: { status: number; code: number }, message: string): never {
  throw new Refusal({ status: error.status, body: { code: error.code, message } });
}
export function badParameters(message: string): never {
  return refuse(SIMULATOR_ERRORS.badParameters, message);
}

/** A license signature must expire sooner than this, and `iat` may be off by less than this. */
export const LICENSE_WINDOW_SECONDS = 5 * 60;
/** An unscoped API signature may live at most this long (the kit's 24 hours), plus a minute of clock skew. */
export const DEFAULT_MAX_TTL_SECONDS = 24 * 3600 + 60;

/** One request as the simulator's routes see it. */
export interface SimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body; undefined when none. */
  json?: unknown;
  /** The parsed multipart body. */
  form?: FormData;
}

/** Who called: the token of the user on whose behalf (empty when none). */
export interface Caller {
  token: string;
}

/**
 * The platform's credential rules (platform-api.md sections 1 and 2): the signature from `X-{brand}-Signature`
 * or the `signature` query parameter; the token from `X-{brand}-Token`, `X-Weboffice-Token` or the `token`
 * query parameter; the appId from the `appId` query parameter or the signature's `kid`. License calls need
 * `scope: license`, an `exp` under 5 minutes ahead, and a signature never seen before; the other calls an
 * unscoped signature that lives at most 24 hours.
 */
export class SimulatorAuth {
  /** Spent license signatures and when they stop mattering (their `exp`), so the set does not grow forever. */
  private readonly spent = new Map<string, number>();
  private readonly names: { signature: string; token: string };

  constructor(
    private readonly credentials: AppCredentials,
    private readonly now: () => number,
    brand = 'Platform',
  ) {
    this.names = { signature: `x-${brand.toLowerCase()}-signature`, token: `x-${brand.toLowerCase()}-token` };
  }

  check(request: SimRequest, scope: 'default' | 'license'): Caller {
    const signature = request.headers[this.names.signature] || request.query.get('signature');
    if (!signature) badParameters('signature is required (X-Platform-Signature or ?signature=)');
    const decoded = verifyHs256(signature, this.credentials.appSecret);
    const queryAppId = request.query.get('appId');
    if (queryAppId !== null && queryAppId !== this.credentials.appId) refuse(SIMULATOR_ERRORS.unknownApp, `unknown appId "${queryAppId}"`);
    if (!decoded.ok) refuse(SIMULATOR_ERRORS.badSignature, `invalid signature: ${decoded.reason}`);
    const { header, claims } = decoded;
    if (header.kid !== undefined && header.kid !== this.credentials.appId) refuse(SIMULATOR_ERRORS.unknownApp, `unknown appId "${String(header.kid)}" (the signature's kid)`);
    if (queryAppId === null && header.kid === undefined) refuse(SIMULATOR_ERRORS.badSignature, "no appId: neither ?appId= nor the signature's kid names the application");

    const now = epochSeconds(this.now());
    if (typeof claims.exp !== 'number') refuse(SIMULATOR_ERRORS.signatureTime, 'the signature has no exp');
    if (claims.exp <= now) refuse(SIMULATOR_ERRORS.signatureTime, 'the signature has expired');
    if (claims.iat !== undefined && (typeof claims.iat !== 'number' || Math.abs(claims.iat - now) >= LICENSE_WINDOW_SECONDS)) {
      refuse(SIMULATOR_ERRORS.signatureTime, "the signature's iat is 5 minutes or more away from the platform's time");
    }
    const scopeClaim = claims.scope === undefined || claims.scope === '' ? undefined : claims.scope;
    if (scope === 'license') {
      if (scopeClaim !== 'license') refuse(SIMULATOR_ERRORS.badSignature, `this call needs a signature with scope "license", not ${JSON.stringify(claims.scope)}`);
      if (claims.exp - now >= LICENSE_WINDOW_SECONDS) refuse(SIMULATOR_ERRORS.signatureTime, 'a license signature must expire within 5 minutes');
      for (const [seen, exp] of this.spent) if (exp <= now) this.spent.delete(seen);
      if (this.spent.has(signature)) refuse(SIMULATOR_ERRORS.signatureReplayed, 'this license signature was already used (single use)');
      this.spent.set(signature, claims.exp);
    } else {
      if (scopeClaim !== undefined) refuse(SIMULATOR_ERRORS.badSignature, `this call takes an unscoped signature, not scope ${JSON.stringify(claims.scope)}`);
      if (claims.exp - now > DEFAULT_MAX_TTL_SECONDS) refuse(SIMULATOR_ERRORS.signatureTime, 'a signature may live at most 24 hours');
    }
    const token = request.headers[this.names.token] || request.headers['x-weboffice-token'] || request.query.get('token') || '';
    return { token };
  }
}
