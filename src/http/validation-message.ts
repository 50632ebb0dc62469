import type { FastifySchemaValidationError } from 'fastify';
import { schemaProblems, type SchemaError } from '../directory-changes/problems.js';

/**
 * The validator's complaints in the words the snapshot's problems use, so every refusal reads alike:
 * `querystring.status must be one of pending, delivered, failed`, `params.userId must not contain control
 * characters (…)`, never "must match a schema in anyOf". `context` is where the value was (body,
 * querystring, params, headers).
 */
export function validationMessage(context: string, errors: readonly FastifySchemaValidationError[]): string {
  const problems = schemaProblems(context, errors as unknown as SchemaError[]);
  return problems.map((problem) => `${problem.path} ${problem.message}`).join('; ') || `${context} is not valid`;
}
