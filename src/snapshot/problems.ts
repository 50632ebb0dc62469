/** One broken rule of a snapshot: where (a JSON path such as `$.users[3].teamId`) and what. */
export interface SnapshotProblem {
  path: string;
  message: string;
}

/** Appends a property or an index to a JSON path: `$.users` + 3 -> `$.users[3]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
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
  const unionPaths = all.filter((error) => error.keyword === 'anyOf').map((error) => `${error.schemaPath}/anyOf/`);
  const problems: SnapshotProblem[] = [];
  for (const error of all) {
    if (unionPaths.some((prefix) => error.schemaPath.startsWith(prefix))) continue; // reported with its union
    const path = pointerToPath(base, error.instancePath);
    switch (error.keyword) {
      case 'boolean': // the per-property twin of `additionalProperties`
        break;
      case 'required':
        for (const name of asStrings(error.params.requiredProperties)) problems.push({ path: childPath(path, name), message: 'is required' });
        break;
      case 'additionalProperties':
        for (const name of asStrings(error.params.additionalProperties)) problems.push({ path: childPath(path, name), message: 'is not a known field' });
        break;
      case 'enum':
        problems.push({ path, message: `must be one of ${asStrings(error.params.allowedValues).join(', ')}` });
        break;
      case 'anyOf': {
        const branches = all.filter((other) => other.schemaPath.startsWith(`${error.schemaPath}/anyOf/`) && other.instancePath === error.instancePath);
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
      default:
        problems.push({ path, message: error.message });
    }
  }
  return problems;
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
