import { ERROR_SCHEMA, SCIM_CONTENT_TYPE } from '../sync/scim/scim-protocol-error.js';

export { SCIM_CONTENT_TYPE };

const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
  500: 'internal',
};

/**
 * A SCIM error body (RFC 7644 §3.12), with the `error: { code, message }` every collab-host error
 * carries beside it (SCIM clients ignore attributes they do not know).
 */
export function scimErrorBody(status: number, scimType: string | undefined, detail: string, code?: string) {
  return {
    schemas: [ERROR_SCHEMA],
    status: String(status),
    ...(scimType === undefined ? {} : { scimType }),
    detail,
    error: { code: code ?? scimType ?? CODES[status] ?? 'bad_request', message: detail },
  };
}
