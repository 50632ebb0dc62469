import { epochSeconds, isRecord, verifyHs256, type AppCredentials } from '../jwt.js';

/**
 * The simulator's platform API rules (interface 4.8 and 5.4): what `POST /sdk/v2/api/files` accepts, and
 * the error codes it answers with. 70001, 70012 and 70013 are the platform's own codes; the signature
 * codes 70002-70005 are the simulator's (the interface does not list the platform's).
 */
export const SIMULATOR_ERRORS = {
  badParameters: { status: 400, code: 70001 },
  unknownApp: { status: 401, code: 70002 },
  badSignature: { status: 401, code: 70003 },
  signatureTime: { status: 401, code: 70004 },
  signatureReplayed: { status: 401, code: 70005 },
  fileExists: { status: 409, code: 70012 },
  fileMissing: { status: 404, code: 70013 },
} as const;

/** The collaborative document types the interface names (`file` is the integrator's own, never created here). */
export const DOCUMENT_TYPES = ['documentPro', 'document', 'spreadsheet', 'table'] as const;
/** Longest fileId accepted. */
export const MAX_FILE_ID_LENGTH = 64;
/** License-scope signatures must expire sooner than this, and `iat` may be off by less than this. */
export const LICENSE_WINDOW_SECONDS = 5 * 60;

export interface CreatedFile {
  fileId: string;
  type: string;
  /** The integrator token given at creation: the platform sends it back on the document's callbacks. */
  token: string;
  createdAt: string;
}

/** An answer of the simulated API: 204 without body, or an error `{ code, message }`. */
export type ApiAnswer = { status: 204 } | { status: number; body: { code: number; message: string } };

const refuse = (error: { status: number; code: number }, message: string): ApiAnswer => ({ status: error.status, body: { code: error.code, message } });

/** The platform's memory: created files and spent license signatures. */
export class SimulatedPlatform {
  readonly files = new Map<string, CreatedFile>();
  /** Spent signatures and when they stop mattering (their `exp`), so the set does not grow forever. */
  private readonly spent = new Map<string, number>();

  constructor(
    readonly credentials: AppCredentials,
    private readonly now: () => number = Date.now,
  ) {}

  /** `POST /sdk/v2/api/files?appId&signature&token` with body `{ type, fileId }`. */
  createFile(query: { appId?: string | null; signature?: string | null; token?: string | null }, body: unknown): ApiAnswer {
    if (!query.appId) return refuse(SIMULATOR_ERRORS.badParameters, 'appId is required');
    if (!query.signature) return refuse(SIMULATOR_ERRORS.badParameters, 'signature is required');
    if (!query.token) return refuse(SIMULATOR_ERRORS.badParameters, 'token is required: the platform sends it back on callbacks');
    if (query.appId !== this.credentials.appId) return refuse(SIMULATOR_ERRORS.unknownApp, `unknown appId "${query.appId}"`);

    const signatureProblem = this.spendLicenseSignature(query.signature);
    if (signatureProblem) return signatureProblem;

    if (!isRecord(body)) return refuse(SIMULATOR_ERRORS.badParameters, 'the body must be a JSON object { type, fileId }');
    const { type, fileId } = body;
    if (typeof type !== 'string' || !(DOCUMENT_TYPES as readonly string[]).includes(type)) {
      return refuse(SIMULATOR_ERRORS.badParameters, `type must be one of ${DOCUMENT_TYPES.join(', ')}, not ${JSON.stringify(type)}`);
    }
    if (typeof fileId !== 'string' || fileId === '' || fileId.length > MAX_FILE_ID_LENGTH) {
      return refuse(SIMULATOR_ERRORS.badParameters, `fileId must be a string of 1 to ${MAX_FILE_ID_LENGTH} characters`);
    }
    if (this.files.has(fileId)) return refuse(SIMULATOR_ERRORS.fileExists, `file id "${fileId}" already exists`);
    this.files.set(fileId, { fileId, type, token: query.token, createdAt: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z') });
    return { status: 204 };
  }

  /** `DELETE /sdk/v2/api/files/{fileId}?appId&signature`: same signature rules; 70013 when unknown. */
  deleteFile(fileId: string, query: { appId?: string | null; signature?: string | null }): ApiAnswer {
    if (!query.appId || !query.signature) return refuse(SIMULATOR_ERRORS.badParameters, 'appId and signature are required');
    if (query.appId !== this.credentials.appId) return refuse(SIMULATOR_ERRORS.unknownApp, `unknown appId "${query.appId}"`);
    const signatureProblem = this.spendLicenseSignature(query.signature);
    if (signatureProblem) return signatureProblem;
    if (!this.files.delete(fileId)) return refuse(SIMULATOR_ERRORS.fileMissing, `file "${fileId}" does not exist`);
    return { status: 204 };
  }

  /**
   * Checks a license-scope signature (contracts.md: HS256 with `kid` = appId, `scope: license`, `exp` in the
   * future and less than 5 minutes ahead, `iat` less than 5 minutes from now, single use) and spends it.
   */
  private spendLicenseSignature(signature: string): ApiAnswer | undefined {
    const decoded = verifyHs256(signature, this.credentials.appSecret);
    if (!decoded.ok) return refuse(SIMULATOR_ERRORS.badSignature, `invalid signature: ${decoded.reason}`);
    const { header, claims } = decoded;
    if (header.kid !== this.credentials.appId) return refuse(SIMULATOR_ERRORS.badSignature, `the signature's kid must be the appId "${this.credentials.appId}"`);
    if (claims.scope !== 'license') return refuse(SIMULATOR_ERRORS.badSignature, `the signature's scope must be "license", not ${JSON.stringify(claims.scope)}`);
    const now = epochSeconds(this.now());
    if (typeof claims.exp !== 'number') return refuse(SIMULATOR_ERRORS.signatureTime, 'the signature has no exp');
    if (claims.exp <= now) return refuse(SIMULATOR_ERRORS.signatureTime, 'the signature has expired');
    if (claims.exp - now >= LICENSE_WINDOW_SECONDS) return refuse(SIMULATOR_ERRORS.signatureTime, 'a license signature must expire within 5 minutes');
    if (claims.iat !== undefined && (typeof claims.iat !== 'number' || Math.abs(claims.iat - now) >= LICENSE_WINDOW_SECONDS)) {
      return refuse(SIMULATOR_ERRORS.signatureTime, 'the signature\'s iat is 5 minutes or more away from the platform\'s time');
    }
    for (const [spent, exp] of this.spent) if (exp <= now) this.spent.delete(spent);
    if (this.spent.has(signature)) return refuse(SIMULATOR_ERRORS.signatureReplayed, 'this license signature was already used (single use)');
    this.spent.set(signature, claims.exp);
    return undefined;
  }
}
