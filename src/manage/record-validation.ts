import type { FastifyReply, FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import type { SnapshotProblem } from '../snapshot/problems.js';

/**
 * The directory records of the management API are checked by the snapshot's validator (src/snapshot),
 * which lists every problem by JSON path, rather than by Fastify's first-error validation. The body and
 * params schemas of those routes therefore document the record only; this compiler accepts anything and
 * the handler runs the snapshot rules.
 */
export const validatedBySnapshotRules: FastifySchemaCompiler<unknown> = () => () => true;

/** A 400 that lists every problem: `{ error: { code, message, problems: [{ path, message }] } }`. */
export const ProblemsErrorSchema = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    problems: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
  }),
});

/** Answers the problems of one record, its paths relative to the record (`$.name`, not `$.teams[0].name`). */
export function replyWithProblems(reply: FastifyReply, section: string, problems: readonly SnapshotProblem[]) {
  const prefix = `$.${section}[0]`;
  const relative = problems.map((problem) => ({
    path: problem.path.startsWith(prefix) ? `$${problem.path.slice(prefix.length)}` : problem.path,
    message: problem.message,
  }));
  const message = relative.map((problem) => `${problem.path} ${problem.message}`).join('; ');
  return reply.status(400).send({ error: { code: 'invalid_record', message, problems: relative } });
}

/** The body as a record object with the path's id; a body `id` that differs from the path is a problem. */
export function recordWithId(body: unknown, id: string): { record: Record<string, unknown>; problems: SnapshotProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { record: { id }, problems: [{ path: '$', message: 'must be a JSON object' }] };
  }
  const given = (body as Record<string, unknown>).id;
  if (given !== undefined && given !== id) return { record: { id }, problems: [{ path: '$.id', message: `must equal the id in the path (${id})` }] };
  return { record: { ...(body as Record<string, unknown>), id }, problems: [] };
}
