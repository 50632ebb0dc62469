import fc, { type Arbitrary } from 'fast-check';

/** The part of JSON Schema (as the OpenAPI document carries our TypeBox schemas) the fuzzer reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

/**
 * Fixed hostile texts: NUL, lone surrogates (alone, leading, trailing, reversed pair), control characters,
 * path traversal (plain and percent-encoded slashes), prototype keys, SQL, other scripts, huge strings.
 */
export const HOSTILE_TEXTS: readonly string[] = [
  '',
  ' ',
  'a\u0000b',
  '\\u0000',
  '%00',
  '\ud800',
  'z\ud800@example.com',
  '\udc00x',
  '\udc00\ud800',
  'a\u0001b\u007f',
  '..',
  '../../etc/passwd',
  '..%2F..%2Fetc',
  'a/b',
  'a%2Fb',
  '%2e%2e%2f',
  '__proto__',
  'constructor',
  'prototype',
  'TEAM_acme',
  'TEAM_',
  '张三',
  'zs',
  'null',
  '0',
  '-1',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '😀',
  'x'.repeat(300),
  'y'.repeat(70_000),
];

/** Strings a caller might send on purpose or by accident: ids, NULs, escapes, other scripts, long ones. */
export const hostileString: Arbitrary<string> = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom(...HOSTILE_TEXTS));

/** Numbers at the edges of every integer type and of JSON. */
export const hostileNumber: Arbitrary<number> = fc.oneof(
  fc.integer({ min: -5, max: 50 }),
  fc.constantFrom(0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 63), 1e20, 1e300, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A value that fits the schema most of the time, and one that does not the rest of the time. */
export function valueFor(schema: JsonSchema | undefined, depth = 0): Arbitrary<unknown> {
  // Wrong types too: arrays where a scalar goes, objects with prototype keys.
  const anything = fc.oneof(
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.jsonValue({ maxDepth: 2 }),
    fc.array(hostileString, { maxLength: 3 }),
    fc.constant(JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}') as unknown),
  );
  if (!schema || depth > 4) return anything;
  return fc.oneof({ weight: 5, arbitrary: fitting(schema, depth) }, { weight: 1, arbitrary: anything });
}

function fitting(schema: JsonSchema, depth: number): Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0) return fc.oneof(...branches.map((branch) => valueFor(branch, depth + 1)));
  const type = [schema.type].flat()[0];
  switch (type) {
    case 'string':
      return hostileString;
    case 'integer':
      return fc.oneof(fc.integer({ min: schema.minimum ?? -3, max: Math.min(schema.maximum ?? 60, 60) }), hostileNumber);
    case 'number':
      return hostileNumber;
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(schema.items, depth + 1), { maxLength: 6 });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) return fc.dictionary(hostileString, valueFor(undefined, depth + 1), { maxKeys: 3 });
      const required = new Set(schema.required ?? []);
      return fc.record(Object.fromEntries(properties.map(([name, property]) => [name, valueFor(property, depth + 1)])), {
        requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)),
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A query value as text: usually the schema's kind of value written plainly, sometimes anything at all. */
export function queryTextFor(schema: JsonSchema | undefined): Arbitrary<string> {
  const type = [schema?.type].flat()[0];
  const plain = type === 'integer' || type === 'number' ? hostileNumber.map(String) : hostileString;
  return fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: fc.constantFrom('', '%20', '1e400', '-0', 'NaN', 'Infinity', 'true', '%ZZ') });
}
