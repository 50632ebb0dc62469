/** An error whose status, code and message are meant for the caller. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code = 'bad_request') => new HttpError(400, code, message);
export const unauthorized = (message: string, code = 'unauthorized') => new HttpError(401, code, message);
export const forbidden = (message: string, code = 'forbidden') => new HttpError(403, code, message);
export const notFound = (message: string, code = 'not_found') => new HttpError(404, code, message);
export const conflict = (message: string, code = 'conflict') => new HttpError(409, code, message);

/** The answer to a credential check's refusal (src/auth/refusal.ts). */
export const refusalError = (refusal: { status: number; code: string; message: string }) => new HttpError(refusal.status, refusal.code, refusal.message);
