import { HttpError } from '../http/errors.js';
import { DocumentInputError } from '../platform/create-document.js';
import { PlatformError } from '../platform/platform-errors.js';

/** The statuses the platform routes declare besides their success. */
export const PLATFORM_ROUTE_ERRORS = [400, 401, 403, 404, 409, 502, 503, 504] as const;

/**
 * Caller mistakes are 4xx; the platform's failures are 502/504 (503 when PLATFORM_API_URL is not set),
 * and their message quotes the platform's status and body (the admin key holder may read them). A
 * refusal whose code says the caller's input caused it is 400 or 409.
 */
export function platformHttpError(error: unknown): unknown {
  if (error instanceof DocumentInputError) {
    switch (error.reason) {
      case 'unknown-user':
        return new HttpError(404, 'user_not_found', error.message);
      case 'unknown-file':
        return new HttpError(404, 'file_not_found', error.message);
      case 'file-exists':
        return new HttpError(409, 'file_exists', error.message);
      case 'not-allowed':
        return new HttpError(403, 'not_allowed', error.message);
      default:
        return new HttpError(400, 'invalid_document', error.message);
    }
  }
  if (error instanceof PlatformError) {
    switch (error.failure) {
      case 'not-configured':
        return new HttpError(503, 'platform_not_configured', error.message);
      case 'timeout':
        return new HttpError(504, 'platform_timeout', error.message);
      case 'unreachable':
        return new HttpError(502, 'platform_unreachable', error.message);
      case 'failed':
        return new HttpError(502, 'platform_failed', error.message);
      case 'unexpected':
        return new HttpError(502, 'platform_unexpected_answer', error.message);
      case 'refused':
        if (error.platformCode === '70012') return new HttpError(409, 'platform_file_exists', error.message);
        if (error.platformCode === '70013') return new HttpError(404, 'platform_file_not_found', error.message);
        if (error.platformCode === '70001') return new HttpError(400, 'platform_bad_parameters', error.message);
        return new HttpError(502, 'platform_refused', error.message);
    }
  }
  return error;
}

/** Runs a platform call, turning its failures into HTTP errors. */
export async function viaPlatform<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw platformHttpError(error);
  }
}
