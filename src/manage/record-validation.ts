import type { FastifyReply, FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import type { RecordRefusal } from '../directory-changes/record-changes.js';

/**
 * The directory records of the management API are checked by the snapshot's validator (src/snapshot),
 * which lists every problem by JSON path, rather than by Fastify's first-error validation. The body and
 * params schemas of those routes therefore document the record only; this compiler accepts anything and
 * the domain runs the snapshot rules.
 */
export const validatedBySnapshotRules: FastifySchemaCompiler<unknown> = () => () => true;

/**
 * The error of a directory route: `{ error: { code, message, problems: [{ path, message }] } }`, where a
 * refused write lists every problem by JSON path (relative to the record). Other refusals of the same
 * status (the admin key guard's 404, …) have no `problems`.
 */
export const ProblemsErrorSchema = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    problems: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  }),
});

/** Answers a refused directory write with its status, code, message and problems. */
export function replyWithRefusal(reply: FastifyReply, refusal: RecordRefusal) {
  return reply.status(refusal.status).send({ error: { code: refusal.code, message: refusal.message, problems: refusal.problems } });
}
