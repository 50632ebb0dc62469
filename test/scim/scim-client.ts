import type { FastifyInstance } from 'fastify';
import type { Config } from '../../src/config/config.js';
import { configWithSync } from '../sync/sync-helpers.js';

export const SCIM_TOKEN = 'scim-test-token-0123456789';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** The test configuration with SCIM on for team `teamId`. */
export function scimConfig(teamId = 'acme', extra: Record<string, string> = {}): Config {
  return configWithSync({ SCIM_TOKEN, SCIM_TEAM_ID: teamId, ...extra });
}

export interface ScimAnswer {
  status: number;
  contentType: string | undefined;
  /** The parsed body (`{}` when empty), read field by field in assertions. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
}

/** One SCIM request as an identity provider sends it: Bearer SCIM_TOKEN, `application/scim+json`. */
export async function scim(app: FastifyInstance, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, token = SCIM_TOKEN): Promise<ScimAnswer> {
  const response = await app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, contentType: response.headers['content-type'] as string | undefined, body: response.body === '' ? {} : response.json() };
}

/** A PatchOp message. */
export const patchOp = (...Operations: object[]) => ({ schemas: [PATCH_OP], Operations });

/** `?filter=…` with the expression encoded as a client encodes it. */
export const filtered = (path: string, filter: string, rest = '') => `${path}?filter=${encodeURIComponent(filter)}${rest}`;
