import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { badRequest, HttpError } from '../http/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepError } from '../http/json-body.js';
import { errorResponses } from '../http/schemas.js';

/**
 * POST /events (interface 4.7 and part 6): hands the push to the event pipeline (src/events/), which
 * authenticates it, decides whether its sender may do what it says, and appends it to the log; the
 * answer (`200 {}`) comes only after that append is durable. Any JSON body is taken, whatever its shape
 * or content type, and stored exactly as received.
 */
export default async function eventCallbacks(app: FastifyInstance, { context }: { context: AppContext }): Promise<void> {
  const { headers } = context;

  // The raw body is kept: it is stored as received and hashed into the delivery key.
  const rawBodies = new WeakMap<FastifyRequest, string>();
  const keepRawJson = (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // Past the nesting bound (src/http/json-body.ts) a push is refused before it is parsed or stored:
    // the event log must be able to serve back every event it keeps.
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(tooDeepError(), undefined);
    try {
      const parsed = JSON.parse(text) as unknown;
      rawBodies.set(request, text);
      done(null, parsed);
    } catch {
      done(badRequest('the body is not valid JSON', 'invalid_json'), undefined);
    }
  };
  // The platform says JSON; a push labelled otherwise (text/plain, nothing) is read as JSON all the same.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, keepRawJson);

  app.post(
    '/events',
    {
      schema: {
        summary: 'Receive a pushed event (comments, mentions, date reminders, content, presence, revisions, System)',
        tags: ['events'],
        headers: Type.Object({
          [headers.sdkEvent]: Type.Optional(Type.String({ description: 'Comment, Discussion, MentionAt, DateMention, FileContent, Collaborator, Revision or System' })),
        }),
        body: Type.Unknown({ description: 'The event as the platform sends it (interface part 6, and the production shapes)' }),
        response: { 200: Type.Object({}, { description: 'the event is stored' }), ...errorResponses(400, 401, 403, 413, 500, 503) },
      },
    },
    async (request) => {
      const rawBody = rawBodies.get(request);
      if (rawBody === undefined) throw badRequest('the body is not valid JSON', 'invalid_json');
      const answer = await context.events.receive({
        headerKind: headerValue(request, headers.sdkEvent),
        rawBody,
        body: request.body,
        token: headerValue(request, headers.token),
        signature: headerValue(request, headers.signature),
      });
      if (answer.status !== 200) throw new HttpError(answer.status, answer.code, answer.message);
      return {};
    },
  );
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
}
