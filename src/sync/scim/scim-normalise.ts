/**
 * What Entra ID and Okta send, made standard before scimmy reads it (RFC 7643 §2.5, RFC 7644 §3.5.2):
 * - `"True"` / `"False"` for the boolean attributes (`active`, `primary`);
 * - the enterprise `manager` as a plain id string, which is `{ "value": id }`;
 * - `null` and `[]` unassign: left out of a resource, and a PATCH `add`/`replace` of them is a `remove`;
 * - operation names in any case (`"Replace"`, `"ADD"`);
 * - `"$ref": null` in member lists (an absent attribute, not a value to match).
 * `withoutUnset` leaves out of an answer what is not set (`""`, empty lists and objects).
 */

const BOOLEAN_KEYS = new Set(['active', 'primary']);
const BOOLEAN_TEXT = /^(true|false)$/i;

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** The last name of a key or path: `urn:…:User:manager` → `manager`, `name.givenName` → `givenname`. */
const lastName = (key: string) => key.split(/[:.]/).at(-1)!.toLowerCase();

/** Is this value an unassignment (RFC 7643 §2.5: null, and an empty multi-valued attribute)? */
const unassigns = (value: unknown) => value === null || (Array.isArray(value) && value.length === 0);

/** One attribute's value, named by `key`, made standard (see the module comment); undefined when unassigned. */
function normaliseValue(value: unknown, key: string | undefined): unknown {
  const name = key === undefined ? undefined : lastName(key);
  if (name !== undefined && BOOLEAN_KEYS.has(name) && typeof value === 'string' && BOOLEAN_TEXT.test(value)) return value.toLowerCase() === 'true';
  if (name === 'manager' && typeof value === 'string') return value.trim() === '' ? undefined : { value };
  if (unassigns(value)) return undefined;
  if (Array.isArray(value)) return value.map((item) => normaliseValue(item, key)).filter((item) => item !== undefined);
  if (isRecord(value)) {
    const entries = Object.entries(value).map(([inner, item]) => [inner, normaliseValue(item, inner)] as const);
    return Object.fromEntries(entries.filter(([, item]) => item !== undefined));
  }
  return value;
}

/** A resource body (POST, PUT) made standard: booleans, manager strings, unassigned attributes left out. */
export function normaliseResource(body: unknown): unknown {
  return isRecord(body) ? normaliseValue(body, undefined) : body;
}

/** The attributes a path-less value unassigns, as paths (`title`, `urn:…:User:department`). */
function unassignedPaths(value: Json): string[] {
  return Object.entries(value).flatMap(([key, item]) => {
    if (unassigns(item)) return [key];
    if (key.toLowerCase().startsWith('urn:') && isRecord(item))
      return Object.entries(item)
        .filter(([, inner]) => unassigns(inner))
        .map(([inner]) => `${key}:${inner}`);
    return [];
  });
}

function normaliseOperation(operation: unknown): unknown[] {
  if (!isRecord(operation)) return [operation];
  const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : operation.op;
  const { path, value } = operation;
  if (op !== 'add' && op !== 'replace') {
    // remove: a value list names members to remove; `"$ref": null` in it means no $ref.
    return [{ ...operation, op, ...(Array.isArray(value) ? { value: value.map((item) => normaliseValue(item, typeof path === 'string' ? path : undefined)) } : {}) }];
  }
  if (typeof path === 'string') {
    const normalised = normaliseValue(value, path);
    if (normalised === undefined) return [{ op: 'remove', path }];
    return [{ ...operation, op, value: normalised }];
  }
  if (!isRecord(value)) return [{ ...operation, op }];
  const removals = unassignedPaths(value).map((removed) => ({ op: 'remove', path: removed }));
  const rest = normaliseValue(value, undefined) as Json;
  const kept = Object.entries(rest).filter(([key, item]) => !(key.toLowerCase().startsWith('urn:') && isRecord(item) && Object.keys(item).length === 0));
  if (kept.length === 0 && removals.length === 0) return [{ ...operation, op }];
  return [...(kept.length > 0 ? [{ ...operation, op, value: Object.fromEntries(kept) }] : []), ...removals];
}

/** A PatchOp made standard (see the module comment); anything that is not one is left for scimmy to refuse. */
export function normalisePatch(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body.Operations)) return body;
  return { ...body, Operations: body.Operations.flatMap(normaliseOperation) };
}

/** An answer without what is not set: empty strings, nulls, empty lists and objects (RFC 7643 §2.5). */
export function withoutUnset<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutUnset).filter((item) => !isEmpty(item)) as T;
  if (!isRecord(value)) return value;
  const entries = Object.entries(value).map(([key, item]) => [key, withoutUnset(item)] as const);
  return Object.fromEntries(entries.filter(([, item]) => !isEmpty(item))) as T;
}

const isEmpty = (value: unknown) =>
  value === '' || value === null || value === undefined || (Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0);
