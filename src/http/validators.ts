import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const BASE: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };

/**
 * Two validators: query strings, params and headers arrive as text, so they are coerced (`page=2` is a
 * number); JSON bodies are not, so `{ "ids": 5 }` is a 400 rather than silently becoming `["5"]`.
 */
export function installValidators(app: FastifyInstance): void {
  const coercing = addFormats(new Ajv({ ...BASE, coerceTypes: 'array' }));
  const strict = addFormats(new Ajv({ ...BASE, coerceTypes: false }));
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
