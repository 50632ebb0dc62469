import { SCIMMY } from './scim-protocol.js';
import { withoutUnset } from './scim-normalise.js';

/**
 * A resource as answered, built straight from its schema's definition: what `withoutUnset(new
 * Schema(resource, 'out', basepath))` gives, for a resource whose attributes came out of scimmy's inbound
 * pass (a write's validated input, as stored). scimmy's outbound pass only re-checks what the inbound one
 * checked, and builds an object of accessors per attribute to do it: it took a sixth of a create's CPU.
 * This walks the same definition the same way (test/scim/scim-answers.test.ts holds the two to the same
 * answers, attribute for attribute and in the same order):
 *
 * - attributes are looked up by name in any case, in the definition's order; those that only go in
 *   (`password`) are left out;
 * - strings, references and binaries are strings, booleans booleans, numbers numbers, dates ISO-8601 text;
 *   a complex value has its sub-attributes in the definition's order;
 * - `meta` gets the resource type and the location `basepath/id`;
 * - `schemas` names the schema, each extension that has a value, then the resource's own; an extension
 *   whose attributes hold nothing is left out of it;
 * - extensions come after the schema's own attributes.
 */

type Definition = InstanceType<typeof SCIMMY.Types.SchemaDefinition>;
type Attribute = InstanceType<typeof SCIMMY.Types.Attribute>;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** The object's values by lower-cased key; of keys differing only in case, the last one (as scimmy reads them). */
function byLowerCase(value: Json): Map<string, unknown> {
  const keyed = new Map<string, unknown>();
  for (const key of Object.keys(value)) keyed.set(key.toLowerCase(), value[key]);
  return keyed;
}

/** Whether the attribute is answered at all: not one that only goes in. */
const goesOut = (attribute: Attribute) => attribute.config.direction !== 'in';

/** One value as the outbound pass coerces it (undefined when absent). */
function coerceOne(attribute: Attribute, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  switch (attribute.type) {
    case 'complex':
      return coerceComplex(attribute.subAttributes ?? [], value);
    case 'boolean':
      return !!value;
    case 'dateTime':
      return new Date(value as string).toISOString();
    case 'decimal':
    case 'integer':
      return Number(value);
    default:
      return String(value);
  }
}

function coerce(attribute: Attribute, value: unknown): unknown {
  if (!attribute.config.multiValued || value === undefined || value === null) return coerceOne(attribute, value);
  return Array.isArray(value) ? value.map((item) => coerceOne(attribute, item)) : undefined;
}

/** A complex value: the attributes that go out, in the definition's order, those without a value left out. */
function coerceComplex(attributes: readonly Attribute[], value: unknown): Json {
  return coerceFrom(attributes, isObject(value) ? byLowerCase(value) : new Map<string, unknown>());
}

function coerceFrom(attributes: readonly Attribute[], source: ReadonlyMap<string, unknown>): Json {
  const coerced: Json = {};
  for (const attribute of attributes) {
    if (!goesOut(attribute)) continue;
    const item = coerce(attribute, source.get(attribute.name.toLowerCase()));
    if (item !== undefined) coerced[attribute.name] = item;
  }
  return coerced;
}

/** scimmy's test before it keeps an extension: any value, at any depth, that is not undefined. */
function hasValues(value: Json): boolean {
  return Object.values(value).some((item) => (isObject(item) ? hasValues(item) : item !== undefined));
}

/**
 * `resource` as `withoutUnset(new Schema(resource, 'out', basepath))` answers it, for a resource whose
 * attributes scimmy's inbound pass gave (see the module comment), with `id`, `meta` and `schemas` set.
 */
export function answerOf(definition: Definition, resource: Json, basepath: string): Json {
  // An extension is listed among the attributes (scimmy's typings say attributes only).
  const members = definition.attributes as ReadonlyArray<Attribute | Definition>;
  const extensions = members.filter((member): member is Definition => member instanceof SCIMMY.Types.SchemaDefinition);
  const attributes = members.filter((member): member is Attribute => member instanceof SCIMMY.Types.Attribute);
  const schemas = [
    ...new Set<string>([
      definition.id,
      ...extensions.filter((extension) => resource[extension.id] !== undefined).map((extension) => extension.id),
      ...(Array.isArray(resource.schemas) ? (resource.schemas as string[]) : []),
    ]),
  ];
  const source = byLowerCase(resource);
  source.set('schemas', schemas);
  const id = resource.id;
  source.set('meta', { ...(isObject(resource.meta) ? resource.meta : {}), resourceType: definition.name, location: `${basepath}${id ? `/${String(id)}` : ''}` });

  const answer = coerceFrom(attributes, source);
  for (const extension of extensions) {
    const value = source.get(extension.id.toLowerCase());
    if (!isObject(value) || Object.keys(value).length === 0) continue;
    const coerced = coerceComplex(extension.attributes, value);
    if (hasValues(coerced)) answer[extension.id] = coerced;
    else answer.schemas = (answer.schemas as string[]).filter((schema) => schema !== extension.id);
  }
  return withoutUnset(answer);
}
