import { childPath, findTextProblem, TEXT_LIMITS, textProblem } from '../../directory/text-rules.js';
import { parseFilter } from './scim-filter.js';
import { isReservedName, parseAttributePath } from './scim-paths.js';
import { ScimProblem } from './scim-protocol-error.js';

/**
 * What a SCIM request body may hold, checked before any library sees it (RFC 7644 §3.12 errors):
 * a JSON object; no key that reaches an object's prototype; strings by the shared text rule; bounded
 * PatchOps and multi-valued attributes. `assertStorable` checks a resource about to be written.
 */
export const SCIM_LIMITS = {
  /** Operations in one PatchOp. */
  operations: 1000,
  /** Values of one multi-valued attribute of a user (emails, phoneNumbers, …) and of any array in a body but members. */
  values: 100,
  /** Members of one group named in one request. */
  members: 10_000,
  /** A stored resource, as JSON (UTF-16 code units; members are not stored with the group). */
  resourceChars: 64 * 1024,
} as const;

/** The longest value of named attributes (the management API's limits); any other string is at most TEXT_LIMITS.url. */
const ATTRIBUTE_LIMITS: Readonly<Record<string, number>> = {
  username: TEXT_LIMITS.name,
  displayname: TEXT_LIMITS.name,
  nickname: TEXT_LIMITS.name,
  formatted: TEXT_LIMITS.name,
  familyname: TEXT_LIMITS.name,
  givenname: TEXT_LIMITS.name,
  middlename: TEXT_LIMITS.name,
  externalid: TEXT_LIMITS.id,
  title: TEXT_LIMITS.name,
  department: TEXT_LIMITS.name,
};

/** `$.emails[0].value` as a client names it: `emails[0].value`. */
const attributeOf = (path: string) => path.replace(/^\$\.?/, '') || 'the body';

function walk(value: unknown, path: string, visit: (value: unknown, path: string, key: string | undefined) => void, key?: string, depth = 0): void {
  if (depth > 64) throw new ScimProblem(400, 'invalidSyntax', `${attributeOf(path)} nests deeper than 64 levels`);
  visit(value, path, key);
  if (Array.isArray(value)) value.forEach((item, index) => walk(item, childPath(path, index), visit, key, depth + 1));
  else if (typeof value === 'object' && value !== null) for (const [name, item] of Object.entries(value)) walk(item, childPath(path, name), visit, name, depth + 1);
}

/** Every key of a body: none may be `__proto__`, `constructor` or `prototype` (or a path naming one). */
function refuseReservedKeys(body: unknown): void {
  walk(body, '$', (value, path) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    for (const key of Object.keys(value)) {
      if (key.split(/[.:]/).some(isReservedName))
        throw new ScimProblem(400, 'invalidPath', `${attributeOf(path)} has an attribute named ${JSON.stringify(key)}, which is not an attribute`);
    }
  });
}

/** Arrays of a body: at most SCIM_LIMITS.values values (members: SCIM_LIMITS.members). */
function refuseLongArrays(body: unknown): void {
  walk(body, '$', (value, path, key) => {
    if (!Array.isArray(value) || key === 'Operations') return;
    const limit = key?.toLowerCase() === 'members' || key === 'value' ? SCIM_LIMITS.members : SCIM_LIMITS.values;
    if (value.length > limit) throw new ScimProblem(400, 'tooMany', `${attributeOf(path)} has ${value.length} values, more than the ${limit} allowed`);
  });
}

/**
 * A PATCH path (RFC 7644 §3.5.2): `attrPath`, or `attrPath[valFilter]` optionally followed by
 * `.subAttr`; read by our rules (the filter by our parser), refused as `400 invalidPath`.
 */
export function checkPatchPath(path: unknown, index: number): void {
  if (path === undefined) return;
  const where = `Operations[${index}].path`;
  if (typeof path !== 'string' || path.trim() === '') throw new ScimProblem(400, 'invalidPath', `${where} must be an attribute path such as "emails[type eq \\"work\\"].value"`);
  if (path.length > 1000) throw new ScimProblem(400, 'invalidPath', `${where} is longer than 1000 characters`);
  const bracket = path.indexOf('[');
  if (bracket < 0) {
    parseAttributePath(path.trim(), 'invalidPath', where);
    return;
  }
  const close = path.lastIndexOf(']');
  const after = path.slice(close + 1);
  if (close < bracket || (after !== '' && !/^\.\$?[A-Za-z][A-Za-z0-9_-]*$/.test(after)))
    throw new ScimProblem(400, 'invalidPath', `${where} must be attribute[filter] or attribute[filter].subAttribute`);
  if (isReservedName(after.slice(1))) throw new ScimProblem(400, 'invalidPath', `${where} names "${after.slice(1)}", which is not an attribute`);
  parseAttributePath(path.slice(0, bracket).trim(), 'invalidPath', where);
  try {
    parseFilter(path.slice(bracket + 1, close));
  } catch (error) {
    throw error instanceof ScimProblem ? new ScimProblem(400, 'invalidPath', `${where}: ${error.message.replace(/^filter: /, '')}`) : error;
  }
}

/**
 * A SCIM request body as the routes take it: a JSON object, no reserved key, every string by the shared
 * text rule (NUL, lone surrogates), bounded arrays, and for a PatchOp at most SCIM_LIMITS.operations
 * operations with valid paths. Throws the SCIM error that says what is wrong.
 */
export function checkScimBody(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ScimProblem(400, 'invalidSyntax', 'the body must be a JSON object: a SCIM resource or a PatchOp message');
  }
  refuseReservedKeys(body);
  const text = findTextProblem(body);
  if (text) throw new ScimProblem(400, 'invalidValue', `${attributeOf(text.path)} ${text.message}`);
  const operations = (body as { Operations?: unknown }).Operations;
  if (Array.isArray(operations)) {
    if (operations.length > SCIM_LIMITS.operations)
      throw new ScimProblem(400, 'tooMany', `a PatchOp may hold at most ${SCIM_LIMITS.operations} operations; this one holds ${operations.length}`);
    operations.forEach((operation, index) => {
      if (typeof operation !== 'object' || operation === null || Array.isArray(operation))
        throw new ScimProblem(400, 'invalidSyntax', `Operations[${index}] must be an object with "op", and "path" or "value"`);
      checkPatchPath((operation as { path?: unknown }).path, index);
    });
  }
  refuseLongArrays(body);
}

/**
 * A resource about to be stored: every string within its attribute's limit (the management API's, so
 * every path stores the same), multi-valued attributes within SCIM_LIMITS.values, and the whole within
 * SCIM_LIMITS.resourceChars (413). Checked before anything is written.
 */
export function assertStorable(kind: 'User' | 'Group', resource: Record<string, unknown>): void {
  walk(resource, '$', (value, path, key) => {
    if (typeof value === 'string') {
      const problem = textProblem(value, ATTRIBUTE_LIMITS[key?.toLowerCase() ?? ''] ?? (key === 'value' && /^\$\.emails\b/.test(path) ? TEXT_LIMITS.email : TEXT_LIMITS.url));
      if (problem) throw new ScimProblem(400, 'invalidValue', `${attributeOf(path)} ${problem}`);
    } else if (Array.isArray(value) && key?.toLowerCase() !== 'members' && value.length > SCIM_LIMITS.values) {
      throw new ScimProblem(400, 'tooMany', `${attributeOf(path)} would hold ${value.length} values, more than the ${SCIM_LIMITS.values} allowed`);
    }
  });
  const stored = { ...resource };
  delete stored.members;
  const size = JSON.stringify(stored).length;
  if (size > SCIM_LIMITS.resourceChars)
    throw new ScimProblem(
      413,
      undefined,
      `the ${kind === 'User' ? 'user' : 'group'} would take ${size} characters, more than the ${SCIM_LIMITS.resourceChars} a resource may hold`,
    );
}
