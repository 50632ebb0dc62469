import { childPath, PATTERN_RULES } from '../directory/text-rules.js';
import { SECTIONS, type SectionName } from './records.js';

export { childPath };

/** One broken rule of a snapshot: where (a JSON path such as `$.users[3].teamId`) and what. */
export interface SnapshotProblem {
  path: string;
  message: string;
}

/** A JSON pointer (`/users/3/teamId`) below `base` as a JSON path (`$.users[3].teamId`). */
export function pointerToPath(base: string, pointer: string): string {
  if (pointer === '') return base;
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<string>((path, segment) => childPath(path, /^\d+$/.test(segment) ? Number(segment) : segment), base);
}

/** The shape of a TypeBox (ajv-like) validation error, as far as it is read here. */
export interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/**
 * Turns TypeBox errors into problems a person can act on: one per missing or unknown field, one per
 * failed union (`must be string or null`), allowed values spelled out.
 */
export function schemaProblems(base: string, errors: Iterable<SchemaError>): SnapshotProblem[] {
  const all = [...errors];
  const unionPaths = all.filter((error) => error.keyword === 'anyOf').map(branchPrefix);
  const problems: SnapshotProblem[] = [];
  for (const error of all) {
    if (unionPaths.some((prefix) => error.schemaPath.startsWith(prefix))) continue; // reported with its union
    const path = pointerToPath(base, error.instancePath);
    switch (error.keyword) {
      case 'boolean': // the per-property twin of `additionalProperties`
        break;
      case 'required': // TypeBox names every missing property, Ajv one
        for (const name of asStrings(error.params.requiredProperties ?? [error.params.missingProperty])) problems.push({ path: childPath(path, name), message: 'is required' });
        break;
      case 'additionalProperties':
        for (const name of asStrings(error.params.additionalProperties ?? [error.params.additionalProperty]))
          problems.push({ path: childPath(path, name), message: 'is not a known field' });
        break;
      case 'enum':
        problems.push({ path, message: `must be one of ${asStrings(error.params.allowedValues).join(', ')}` });
        break;
      case 'anyOf': {
        const branches = all.filter((other) => other.schemaPath.startsWith(branchPrefix(error)) && other.instancePath === error.instancePath);
        if (branches.length > 0 && branches.every((branch) => branch.keyword === 'const')) {
          // A union of literals (TypeBox's way of writing an enum): name the allowed values.
          problems.push({ path, message: `must be one of ${branches.map((branch) => String(branch.params.allowedValue)).join(', ')}` });
          break;
        }
        const wanted = branches.map(branchWanted);
        problems.push({ path, message: wanted.length > 0 ? `must be ${wanted.join(' or ')}` : 'has the wrong type' });
        break;
      }
      case 'minLength':
        problems.push({ path, message: error.params.limit === 1 ? 'must not be empty' : `must have at least ${String(error.params.limit)} characters` });
        break;
      case 'maxLength':
        problems.push({ path, message: `must have at most ${String(error.params.limit)} characters` });
        break;
      case 'maximum':
        problems.push({ path, message: `must be at most ${String(error.params.limit)}` });
        break;
      case 'minimum':
        problems.push({ path, message: `must be at least ${String(error.params.limit)}` });
        break;
      case 'const':
        problems.push({ path, message: `must be ${String(error.params.allowedValue)}` });
        break;
      case 'pattern':
        problems.push({ path, message: PATTERN_RULES[String(error.params.pattern)] ?? error.message });
        break;
      default:
        problems.push({ path, message: error.message });
    }
  }
  return problems;
}

/**
 * Where the branches of a failed union sit in the schema: TypeBox reports the union at the schema that holds
 * `anyOf` (`#/properties/role`), Ajv at the keyword itself (`#/properties/role/anyOf`).
 */
function branchPrefix(union: SchemaError): string {
  return union.schemaPath.endsWith('/anyOf') ? `${union.schemaPath}/` : `${union.schemaPath}/anyOf/`;
}

/** What one branch of a failed union wanted, e.g. `null` or `a non-empty string`. */
function branchWanted(error: SchemaError): string {
  if (error.keyword === 'minLength') return 'a non-empty string';
  if (error.keyword === 'maxLength') return `a string of at most ${String(error.params.limit)} characters`;
  return error.message.replace(/^must be /, '');
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * The fields of a structurally broken record that are well formed, or undefined when it has no usable
 * id. A broken entry of `sharing` or `departmentIds` becomes a hole (`undefined`), so indexes stay true.
 */
export function withoutBrokenFields(record: unknown, errors: readonly SchemaError[]): Record<string, unknown> | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const usable: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  const brokenEntries = new Map<string, Set<number>>();
  for (const error of errors) {
    const [field, index] = error.instancePath.split('/').slice(1);
    if (field === undefined) {
      if (error.keyword === 'additionalProperties') for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) delete usable[name];
      continue;
    }
    if ((field === 'sharing' || field === 'departmentIds') && index !== undefined && /^\d+$/.test(index) && Array.isArray(usable[field])) {
      const set = brokenEntries.get(field) ?? new Set<number>();
      set.add(Number(index));
      brokenEntries.set(field, set);
    } else {
      delete usable[field];
    }
  }
  for (const [field, indexes] of brokenEntries) {
    const list = usable[field];
    if (Array.isArray(list)) usable[field] = list.map((entry: unknown, i) => (indexes.has(i) ? undefined : entry));
  }
  return typeof usable.id === 'string' && usable.id !== '' ? usable : undefined;
}

/** Problems ordered by section and record (stable within a record), the order a reader fixes them in. */
export function byRecord(problems: SnapshotProblem[]): SnapshotProblem[] {
  const key = (path: string): [number, number] => {
    const match = /^\$\.(\w+)\[(\d+)\]/.exec(path);
    if (!match) return [-1, 0];
    return [SECTIONS.indexOf(match[1] as SectionName), Number(match[2])];
  };
  return problems
    .map((problem, order) => ({ problem, order, key: key(problem.path) }))
    .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.order - b.order)
    .map(({ problem }) => problem);
}
