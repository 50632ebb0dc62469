import SCIMMY from 'scimmy';
import { IM_KINDS } from '../../directory/types.js';
import { ERROR_SCHEMA, SCIM_CONTENT_TYPE, ScimProblem } from './scim-protocol-error.js';
import { parseFilter, type ScimFilter } from './scim-filter.js';
import { matchesFilter } from './scim-filter-match.js';
import { parseAttributeList } from './scim-paths.js';
import { boundedScan } from './scim-scan.js';
import { parseSort, type SortOrder } from './scim-sort.js';

/**
 * The SCIM protocol pieces collab-host takes from scimmy (schemas, coercion, filters, PATCH), set up
 * once: the User resource carries the enterprise extension (Entra ID sends `department`, `manager` and
 * so on in it). scimmy keeps its declarations per process; nothing else here is global.
 */
if (!SCIMMY.Resources.User.describe().schemaExtensions?.some((extension) => extension.schema === SCIMMY.Schemas.EnterpriseUser.id)) {
  SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false);
}

/**
 * `ims` types (RFC 7643 §4.1.2 lists canonical ones and lets a provider add its own): the IMs whose group
 * bots collab-host posts to, so an identity provider can send a person's WeCom, DingTalk, Feishu or Slack
 * id (docs/notifications.md).
 */
const imType = SCIMMY.Schemas.User.definition.attribute('ims.type') as { config: { canonicalValues: string[] | false } };
if (Array.isArray(imType.config.canonicalValues)) imType.config.canonicalValues = [...new Set([...imType.config.canonicalValues, ...IM_KINDS])];

export { SCIMMY };

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export { ERROR_SCHEMA, SCIM_CONTENT_TYPE, ScimProblem };

/** What the JavaScript engine itself says of a broken operation: never shown to a client. */
const RUNTIME_TEXT =
  /is not a function|is not iterable|is not a constructor|Cannot (read|set) propert|Cannot convert|Cannot destructure|Cannot use 'in'|Cannot create property|Invalid array length|Maximum call stack/;

/**
 * scimmy reports problems as its own errors (with a status) or as TypeErrors (a value of the wrong
 * shape); both are the client's. A TypeError in the engine's words (a value scimmy did not expect) is the
 * client's too, but answered in ours. Anything else is ours and is rethrown.
 */
export function asScimProblem(error: unknown): ScimProblem {
  if (error instanceof ScimProblem) return error;
  if (error instanceof SCIMMY.Types.Error)
    return new ScimProblem(error.status, error.scimType ?? undefined, RUNTIME_TEXT.test(error.message) ? 'the request holds a value that cannot be applied' : error.message);
  if (error instanceof TypeError)
    return new ScimProblem(400, 'invalidValue', RUNTIME_TEXT.test(error.message) ? 'the request holds a value of the wrong type for its attribute' : error.message);
  throw error;
}

/** Runs a scimmy call, turning its complaints into ScimProblems. */
export function scimmy<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw asScimProblem(error);
  }
}

export { normalisePatch, normaliseResource, withoutUnset } from './scim-normalise.js';
export { sortResources } from './scim-sort.js';
export { mapInSlices } from './scim-scan.js';

/** The query parameters of a SCIM list (RFC 7644 §3.4.2). */
export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
  attributes?: string;
  excludedAttributes?: string;
  sortBy?: string;
  sortOrder?: string;
}

/** Parsed `filter` (our own parser) and `attributes`/`excludedAttributes` (checked by our rules, then scimmy's selection), or undefined. */
export function parseQuery(
  kind: 'User' | 'Group',
  query: ListQuery,
): { filter: ScimFilter | undefined; attributes: InstanceType<typeof SCIMMY.Types.Filter> | undefined; sort: SortOrder | undefined } {
  const filter = query.filter === undefined ? undefined : parseFilter(query.filter);
  const sort = parseSort(query.sortBy, query.sortOrder);
  const config: Record<string, string> = {};
  // Only lists that passed our path rules reach scimmy (which builds objects keyed by these names).
  if (query.attributes !== undefined)
    config.attributes = parseAttributeList(query.attributes, 'attributes')
      .map((path) => path.text)
      .join(',');
  if (query.excludedAttributes !== undefined)
    config.excludedAttributes = parseAttributeList(query.excludedAttributes, 'excludedAttributes')
      .map((path) => path.text)
      .join(',');
  if (Object.keys(config).length === 0) return { filter, attributes: undefined, sort };
  const resource = kind === 'User' ? SCIMMY.Resources.User : SCIMMY.Resources.Group;
  const parsed = scimmy(() => new resource(undefined, config));
  return { filter, attributes: parsed.attributes, sort };
}

/** Attributes a filter never sees (RFC 7643: `returned: never`), whatever their case. */
const NEVER_RETURNED = new Set(['password']);

/**
 * A resource as a filter reads it: its stored attributes (already in scimmy's canonical form when they
 * were written) as plain JSON, without what is never returned. Cheaper than shaping every resource.
 */
function filterable(resource: unknown): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(resource)) as Record<string, unknown>;
  for (const key of Object.keys(plain)) if (NEVER_RETURNED.has(key.toLowerCase())) delete plain[key];
  return plain;
}

/**
 * The resources a filter selects (see scim-filter-match.ts), read in slices with a turn of the event loop
 * between them, and at most MAX_CONCURRENT_SCANS scans at a time in the process: a filter that no index
 * serves costs time in proportion to the team, and must never hold health checks or other callers.
 */
export async function matchFilter<T>(filter: ScimFilter, resources: T[]): Promise<T[]> {
  return boundedScan(resources, (resource) => matchesFilter(filter, filterable(resource)));
}
