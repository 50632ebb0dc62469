import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const BASE: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };

/** How a number is written in a query string: digits, an optional sign and fraction; no exponent, no blanks. */
const PLAIN_NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/;

/**
 * Two validators: query strings, params and headers arrive as text, so they are coerced (`page=2` is a
 * number); JSON bodies are not, so `{ "ids": 5 }` is a 400 rather than silently becoming `["5"]`.
 * Ajv's coercion takes `page=%20` for 0 and `page=1e400` for Infinity; a numeric query value must be
 * written as a plain number, or it fails validation like any other non-number.
 */
export function installValidators(app: FastifyInstance): void {
  const coercing = addFormats(new Ajv({ ...BASE, coerceTypes: 'array' }));
  const strict = addFormats(new Ajv({ ...BASE, coerceTypes: false }));
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict.compile(schema) : withPlainNumbers(schema as JsonSchema, coercing.compile(schema))));
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
}

function withPlainNumbers(schema: JsonSchema, validate: ValidateFunction): ValidateFunction {
  const numeric = Object.entries(schema.properties ?? {})
    .filter(([, property]) => [property.type].flat().some((type) => type === 'integer' || type === 'number'))
    .map(([name]) => name);
  if (numeric.length === 0) return validate;
  const checked = ((data: unknown) => {
    if (typeof data === 'object' && data !== null) {
      const values = data as Record<string, unknown>;
      // An object is never coerced to a number, so the value fails with "must be integer".
      for (const name of numeric) if (typeof values[name] === 'string' && !PLAIN_NUMBER.test(values[name] as string)) values[name] = {};
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return checked;
}
