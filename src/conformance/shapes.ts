import { isRecord } from './jwt.js';

/**
 * Small structural validators for the shapes of part 2 of the interface. A shape appends one readable
 * problem per deviation (`files[0].permissions.editable: expected boolean, got "yes"`) and never throws.
 * Shapes check presence and JSON types only; value rules (time format, views, …) are separate checks so a
 * fault is reported by the check that names its rule.
 */
export type Shape = (value: unknown, where: string, problems: string[]) => void;

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

const primitive =
  (expected: 'string' | 'number' | 'boolean'): Shape =>
  (value, where, problems) => {
    if (typeof value !== expected || (expected === 'number' && !Number.isFinite(value))) {
      problems.push(`${where}: expected ${expected}, got ${value === undefined ? 'nothing' : `${typeName(value)} ${shown(value)}`}`);
    }
  };

export const str = primitive('string');
export const bool = primitive('boolean');
export const num = primitive('number');

/** A whole number of at least 0. */
export const count: Shape = (value, where, problems) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    problems.push(`${where}: expected a whole number >= 0, got ${shown(value)}`);
  }
};

/** A string that is not empty. */
export const nonEmpty: Shape = (value, where, problems) => {
  if (typeof value !== 'string' || value === '') problems.push(`${where}: expected a non-empty string, got ${shown(value)}`);
};

export const literal =
  (expected: string): Shape =>
  (value, where, problems) => {
    if (value !== expected) problems.push(`${where}: expected ${JSON.stringify(expected)}, got ${shown(value)}`);
  };

const OPTIONAL = new WeakSet<Shape>();

/** Marks a field optional: absent (undefined) is fine, present must match. */
export function optional(shape: Shape): Shape {
  const wrapped: Shape = (value, where, problems) => {
    if (value !== undefined) shape(value, where, problems);
  };
  OPTIONAL.add(wrapped);
  return wrapped;
}
export function object(fields: Record<string, Shape>): Shape {
  return (value, where, problems) => {
    if (!isRecord(value)) {
      problems.push(`${where}: expected an object, got ${typeName(value)} ${shown(value)}`);
      return;
    }
    for (const [name, shape] of Object.entries(fields)) {
      if (value[name] === undefined && !OPTIONAL.has(shape)) {
        problems.push(`${where}.${name}: missing`);
        continue;
      }
      shape(value[name], `${where}.${name}`, problems);
    }
  };
}

export function arrayOf(element: Shape): Shape {
  return (value, where, problems) => {
    if (!Array.isArray(value)) {
      problems.push(`${where}: expected an array, got ${typeName(value)} ${shown(value)}`);
      return;
    }
    value.forEach((item, index) => element(item, `${where}[${index}]`, problems));
  };
}

/** Runs a shape and returns its problems. */
export function problemsOf(shape: Shape, value: unknown, where: string): string[] {
  const problems: string[] = [];
  shape(value, where, problems);
  return problems;
}

// Part 2 of the interface.

/** 2.1: all six flags of a collaborative document's permissions. */
export const PERMISSIONS = object({
  commentable: bool,
  editable: bool,
  readable: bool,
  copyable: bool,
  exportable: bool,
  manageable: bool,
});

/** The fields every collaborative File has (2.2); times are checked by the time-format check. */
const FILE_FIELDS = {
  id: nonEmpty,
  name: str,
  type: nonEmpty,
  creatorId: str,
  createdAt: str,
  updatedAt: str,
  permissions: PERMISSIONS,
};

/** 2.2 (`views` is checked by its own rule). */
export const FILE = object({ ...FILE_FIELDS, teamGuid: optional(str), fullUrl: optional(str) });

/** 4.1: what the admin file endpoints answer. */
export const ADMIN_FILE = object({ ...FILE_FIELDS, views: optional(num) });

/** 2.3: preview metadata of a third-party file; permissions need at least `readable`. */
export const PREVIEW = object({
  id: nonEmpty,
  name: str,
  type: literal('file'),
  permissions: object({ readable: bool }),
  downloadUrl: str,
  ext: optional(str),
});

/** 2.4 as returned by `GET /users/{userId}`, the batch, the members lists and the user searches. */
export const USER = object({ id: nonEmpty, name: str, avatar: str, email: str });
export const CURRENT_USER = object({ id: nonEmpty, name: str, avatar: str, email: str, teamGuid: optional(str) });
export const COLLABORATOR = object({ id: nonEmpty, name: str, avatar: str, email: str, isManager: bool });

/** 2.5 */
export const TEAM = object({ id: nonEmpty, name: str, memberCount: count });

/** 2.6 without `parentDepartments` (departments endpoints) and with it (search results). */
export const DEPARTMENT = object({ id: nonEmpty, name: str, allMemberCount: count });
export const PATH_NODE = object({ id: nonEmpty, name: str });
export const SEARCH_DEPARTMENT = object({
  id: nonEmpty,
  name: str,
  allMemberCount: count,
  parentDepartments: optional(arrayOf(PATH_NODE)),
});

/** 4.3: `GET /departments/{departmentId}/members`. */
export const DEPARTMENT_MEMBERS = object({ total: count, members: arrayOf(USER) });

/** 2.8 */
export const WATERMARK = object({ watermarks: arrayOf(str) });

/** 2.9, results checked by the caller against the element shape of its key. */
export function pageWrapper(element: Shape): Shape {
  return object({ count, page: count, pageSize: count, pageCount: count, results: arrayOf(element) });
}
