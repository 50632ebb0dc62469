import SCIMMY from 'scimmy';

/**
 * The SCIM protocol pieces collab-host takes from scimmy (schemas, coercion, filters, PATCH), set up
 * once: the User resource carries the enterprise extension (Entra ID sends `department`, `manager` and
 * so on in it). scimmy keeps its declarations per process; nothing else here is global.
 */
if (!SCIMMY.Resources.User.describe().schemaExtensions?.some((extension) => extension.schema === SCIMMY.Schemas.EnterpriseUser.id)) {
  SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false);
}

export { SCIMMY };

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** A SCIM error (RFC 7644 §3.12): HTTP status, `scimType` where the RFC names one, and a detail for people. */
export class ScimProblem extends Error {
  override name = 'ScimProblem';
  constructor(
    readonly status: number,
    readonly scimType: string | undefined,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * scimmy reports problems as its own errors (with a status) or as TypeErrors (a value of the wrong
 * shape); both are the client's. Anything else is ours and is rethrown.
 */
export function asScimProblem(error: unknown): ScimProblem {
  if (error instanceof ScimProblem) return error;
  if (error instanceof SCIMMY.Types.Error) return new ScimProblem(error.status, error.scimType ?? undefined, error.message);
  if (error instanceof TypeError) return new ScimProblem(400, 'invalidValue', error.message);
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

const BOOLEAN_TEXT = /^(true|false)$/i;

/** `"True"` / `"False"` (Entra ID's spelling) as booleans; anything else as it is. */
function booleanOf(value: unknown): unknown {
  return typeof value === 'string' && BOOLEAN_TEXT.test(value) ? value.toLowerCase() === 'true' : value;
}

/** A body with Entra ID's string `active` as a boolean. */
export function normaliseResource(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  return 'active' in record ? { ...record, active: booleanOf(record.active) } : record;
}

function withoutNulls(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== null));
}

/**
 * A PatchOp with Entra ID's quirks made standard: `"active": "False"` (with or without a path) as a
 * boolean, and `"$ref": null` in member lists left out. Capitalised ops (`"Replace"`) and member
 * removal by a `value` list are handled by scimmy.
 */
export function normalisePatch(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const message = body as { Operations?: unknown };
  if (!Array.isArray(message.Operations)) return body;
  return {
    ...message,
    Operations: message.Operations.map((operation: unknown) => {
      if (typeof operation !== 'object' || operation === null) return operation;
      const { path, value } = operation as { path?: unknown; value?: unknown };
      if (typeof path === 'string' && path.trim().toLowerCase() === 'active') return { ...operation, value: booleanOf(value) };
      if (path === undefined) return { ...operation, value: normaliseResource(value) };
      // `[{"$ref": null, "value": "…"}]`: a null attribute is an absent one (RFC 7643 §2.5), not a value to match.
      if (Array.isArray(value)) return { ...operation, value: value.map(withoutNulls) };
      return operation;
    }),
  };
}

/** The query parameters of a SCIM list (RFC 7644 §3.4.2). */
export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
  attributes?: string;
  excludedAttributes?: string;
}

/** Parsed `filter` and `attributes`/`excludedAttributes` (scimmy's filter objects), or undefined. */
export function parseQuery(kind: 'User' | 'Group', query: ListQuery): { filter: InstanceType<typeof SCIMMY.Types.Filter> | undefined; attributes: InstanceType<typeof SCIMMY.Types.Filter> | undefined } {
  const resource = kind === 'User' ? SCIMMY.Resources.User : SCIMMY.Resources.Group;
  const config: Record<string, string> = {};
  if (query.filter !== undefined) config.filter = query.filter;
  if (query.attributes !== undefined) config.attributes = query.attributes;
  if (query.excludedAttributes !== undefined) config.excludedAttributes = query.excludedAttributes;
  const parsed = scimmy(() => new resource(undefined, config));
  return { filter: parsed.filter, attributes: parsed.attributes };
}

type Filter = InstanceType<typeof SCIMMY.Types.Filter>;

/**
 * Attributes compared exactly (RFC 7643 marks `id` and `externalId` caseExact; `meta`, references and
 * member ids are identifiers too). Every other string attribute of User and Group is caseExact false.
 */
const CASE_EXACT = new Set(['id', 'externalid', 'meta', '$ref', 'members', 'password']);

/** A copy with strings lower-cased, except below case-exact attributes; object keys are kept. */
function fold(value: unknown, exact = false): unknown {
  if (typeof value === 'string') return exact ? value : value.toLowerCase();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => fold(item, exact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fold(item, exact || CASE_EXACT.has(key.toLowerCase()))]));
  }
  return value;
}

/**
 * The resources a filter selects, comparing strings the way the schema says: scimmy's matcher compares
 * exactly, while `userName`, `displayName` and `emails.value` are case-insensitive (RFC 7643 §2.2), so
 * both the filter's values and the resources are case-folded first.
 */
export function matchFilter<T>(filter: Filter, resources: T[]): T[] {
  const folded = resources.map((resource) => fold(JSON.parse(JSON.stringify(resource))) as Record<string, unknown>);
  const foldedFilter = scimmy(() => new SCIMMY.Types.Filter([...filter].map((expression) => fold(expression))));
  const matched = new Set(scimmy(() => foldedFilter.match(folded)));
  return resources.filter((_, index) => matched.has(folded[index]!));
}
