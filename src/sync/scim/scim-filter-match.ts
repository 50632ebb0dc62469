import type { CompareOperator, FilterNode, FilterValue, ScimFilter } from './scim-filter.js';
import type { AttributePath } from './scim-paths.js';

/**
 * Evaluates a parsed SCIM filter against one resource. Strings compare case-insensitively except under
 * the attributes RFC 7643 marks caseExact (ids, `externalId`, references, member ids); a value the
 * resource does not have never matches (and never throws): `emails.value co "a"` simply leaves out the
 * users without e-mail. Keys are read as own properties only, whatever their case.
 */

/** Top-level attributes whose strings compare exactly. */
export const CASE_EXACT = new Set(['id', 'externalid', '$ref', 'members', 'password']);

const CORE_SCHEMAS = new Set(['urn:ietf:params:scim:schemas:core:2.0:user', 'urn:ietf:params:scim:schemas:core:2.0:group']);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T/;

type Resource = Record<string, unknown>;

const isRecord = (value: unknown): value is Resource => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** An own property, its name compared case-insensitively (never anything inherited). */
function ownValue(record: Resource, name: string): unknown {
  const lower = name.toLowerCase();
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === lower);
  return key === undefined ? undefined : record[key];
}

/** The object a path's names are read in: the resource, or the extension its schema URN names. */
function scopeOf(resource: Resource, path: AttributePath): unknown {
  if (path.schema === undefined || CORE_SCHEMAS.has(path.schema.toLowerCase())) return resource;
  return ownValue(resource, path.schema);
}

/** The values at `path`, multi-valued attributes flattened; complex values kept as objects. */
export function valuesAt(resource: Resource, path: AttributePath): unknown[] {
  let current: unknown[] = [scopeOf(resource, path)];
  for (const name of path.names) {
    current = current.flatMap((value) => (Array.isArray(value) ? value : [value])).flatMap((value) => (isRecord(value) ? [ownValue(value, name)] : []));
  }
  return current.flatMap((value) => (Array.isArray(value) ? value : [value])).filter((value) => value !== undefined && value !== null);
}

/** A complex value compared as a whole compares its `value` sub-attribute (RFC 7644 §3.4.2.2). */
export const comparable = (value: unknown): unknown => (isRecord(value) ? ownValue(value, 'value') : value instanceof Date ? value.toISOString() : value);

function compareOne(actualValue: unknown, operator: CompareOperator, expected: FilterValue, exact: boolean): boolean {
  const actual = comparable(actualValue);
  if (typeof actual === 'boolean') {
    const wanted = typeof expected === 'string' && /^(true|false)$/i.test(expected) ? expected.toLowerCase() === 'true' : expected;
    if (operator === 'eq') return actual === wanted;
    if (operator === 'ne') return actual !== wanted;
    return false;
  }
  if (typeof actual === 'number') {
    if (typeof expected !== 'number') return operator === 'ne';
    return {
      eq: actual === expected,
      ne: actual !== expected,
      gt: actual > expected,
      lt: actual < expected,
      ge: actual >= expected,
      le: actual <= expected,
      co: false,
      sw: false,
      ew: false,
    }[operator];
  }
  if (typeof actual !== 'string') return operator === 'ne';
  if (typeof expected !== 'string') return operator === 'ne';
  const a = exact ? actual : actual.toLowerCase();
  const e = exact ? expected : expected.toLowerCase();
  switch (operator) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'co':
      return a.includes(e);
    case 'sw':
      return a.startsWith(e);
    case 'ew':
      return a.endsWith(e);
    default: {
      const [left, right] = ISO_DATE.test(a) && ISO_DATE.test(e) && !Number.isNaN(Date.parse(a)) && !Number.isNaN(Date.parse(e)) ? [Date.parse(a), Date.parse(e)] : [a, e];
      return { gt: left > right, lt: left < right, ge: left >= right, le: left <= right }[operator];
    }
  }
}

const present = (value: unknown): boolean => value !== '' && !(Array.isArray(value) && value.length === 0) && !(isRecord(value) && Object.keys(value).length === 0);

function evaluate(node: FilterNode, resource: Resource, exactScope: boolean): boolean {
  switch (node.kind) {
    case 'and':
      return evaluate(node.left, resource, exactScope) && evaluate(node.right, resource, exactScope);
    case 'or':
      return evaluate(node.left, resource, exactScope) || evaluate(node.right, resource, exactScope);
    case 'not':
      return !evaluate(node.node, resource, exactScope);
    case 'present':
      return valuesAt(resource, node.path).some(present);
    case 'valuePath': {
      const exact = exactScope || CASE_EXACT.has(node.path.names[0]!.toLowerCase());
      return valuesAt(resource, node.path).some((item) => isRecord(item) && evaluate(node.filter, item, exact));
    }
    case 'compare': {
      const exact = exactScope || CASE_EXACT.has(node.path.names[0]!.toLowerCase());
      const values = valuesAt(resource, node.path);
      if (node.value === null) return (node.operator === 'eq') === !values.some(present);
      if (node.operator === 'ne') return !values.some((value) => compareOne(value, 'eq', node.value, exact));
      return values.some((value) => compareOne(value, node.operator, node.value, exact));
    }
  }
}

/** Does the resource match the filter? */
export function matchesFilter(filter: ScimFilter, resource: Resource): boolean {
  return evaluate(filter.root, resource, false);
}

/** The value of the filter's single `attribute eq "value"` comparison, when that is all it is (an index serves it). */
export function equalityOf(filter: ScimFilter | undefined, attribute: string): string | undefined {
  const root = filter?.root;
  if (root?.kind !== 'compare' || root.operator !== 'eq' || typeof root.value !== 'string') return undefined;
  if (root.path.names.length !== 1 || root.path.names[0]!.toLowerCase() !== attribute.toLowerCase()) return undefined;
  if (root.path.schema !== undefined && !CORE_SCHEMAS.has(root.path.schema.toLowerCase())) return undefined;
  return root.value;
}
