import { SCIMMY } from './scim-protocol.js';

type Json = Record<string, unknown>;

interface ExtensionDefinition {
  id: string;
  required: boolean;
  coerce(value: unknown, direction: string): Json;
  attribute(name: string): { config?: { returned?: unknown } } | undefined;
}

/**
 * A request body's User as `{ ...new SCIMMY.Schemas.User(body, 'in') }` reads it, without the
 * instance: scimmy's constructor checks `schemas`, coerces the body through the schema's definition, then
 * assigns each attribute back through an accessor of its own that coerces the value a second time, and
 * reading an extension drops its empty values. Building that instance (two accessors for every attribute,
 * each value coerced twice) was a fifth of a SCIM create's CPU. This runs the same checks in the same
 * order and gives the same values, errors and key order: `test/scim/scim-inbound.test.ts` holds it to the
 * instance on generated bodies.
 */
export function inboundResource(schema: typeof SCIMMY.Schemas.User, data: unknown): Json {
  const { definition } = schema;
  // As the constructor reads it: an absent body is `{}`, null fails to destructure (a TypeError).
  const { schemas = [] } = (data === undefined ? {} : data) as { schemas?: unknown };
  const extensions = definition.attributes.filter((attribute) => attribute instanceof SCIMMY.Types.SchemaDefinition) as unknown as ExtensionDefinition[];
  if (Array.isArray(schemas) && schemas.length > 0) {
    if (!schemas.includes(definition.id)) throw new SCIMMY.Types.Error(400, 'invalidSyntax', 'The request body supplied a schema type that is incompatible with this resource');
    for (const extension of extensions) {
      if (extension.required && !schemas.includes(extension.id)) {
        throw new SCIMMY.Types.Error(400, 'invalidValue', `The request body is missing schema extension '${extension.id}' required by this resource type`);
      }
    }
  }
  const resource = definition.coerce(data as Json, 'in') as Json;
  for (const attribute of definition.attributes) {
    if (!(attribute instanceof SCIMMY.Types.Attribute) || resource[attribute.name] === undefined) continue;
    // The accessor's second coercion: it puts a complex value's sub-attributes in the definition's order.
    resource[attribute.name] = asSetterProblem(() => attribute.coerce(resource[attribute.name], 'in'));
  }
  for (const extension of extensions) {
    if (resource[extension.id] === undefined) continue;
    const value = extensionValue(extension, resource[extension.id] as Json);
    if (value === undefined) {
      delete resource[extension.id];
      // The extension's setter takes an extension without values out of `schemas`.
      if (Array.isArray(resource.schemas)) resource.schemas = (resource.schemas as unknown[]).filter((id) => id !== extension.id);
    } else {
      resource[extension.id] = value;
      // And puts one with values into it (a namespaced key in other case does not name it there).
      if (Array.isArray(resource.schemas) && !resource.schemas.includes(extension.id)) resource.schemas.push(extension.id);
    }
  }
  return resource;
}

/**
 * An extension's coerced value as the instance's setter stores it and its getter gives it back: empty
 * values dropped, undefined when nothing is left, and only the attributes an answer may return (the
 * receiver's `toJSON`).
 */
function extensionValue(extension: ExtensionDefinition, coerced: Json): Json | undefined {
  const stored = asSetterProblem(() => (hasActualValues(coerced) ? extension.coerce(coerced, 'in') : undefined));
  if (stored === undefined) return undefined;
  for (const [key, item] of Object.entries(stored)) {
    if (item === undefined || (Object(item) === item && !hasActualValues(item as Json))) delete stored[key];
  }
  if (!hasActualValues(stored)) return undefined;
  const returned: Json = {};
  for (const [name, item] of Object.entries(stored)) {
    const config = extension.attribute(name)?.config;
    if (config?.returned !== false && config?.returned !== 'never') returned[name] = item;
  }
  return returned;
}

/** A coercion's complaint as an instance's setter words it. */
function asSetterProblem<T>(coerce: () => T): T {
  try {
    return coerce();
  } catch (error) {
    throw new SCIMMY.Types.Error(400, 'invalidValue', error instanceof Error ? error.message : String(error));
  }
}

/** scimmy's test of a value holding anything (an object's values, deeply; null is an object to it, and throws). */
function hasActualValues(target: Json): boolean {
  return Object.values(target).some((value) => (typeof value === 'object' ? hasActualValues(value as Json) : value !== undefined));
}
