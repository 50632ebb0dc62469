import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { checkPlatformSignature, SIGNATURE_FAILURE_MESSAGES } from '../auth/signature-check.js';
import { authenticateEvent } from '../events/event-credentials.js';
import { KIND_RULES, knownKind, UNKNOWN_KIND_RULE } from '../events/event-kinds.js';
import { EventRecorder } from '../events/event-recorder.js';
import { classifyEvent, type KnownEvent } from '../events/event-schemas.js';
import { displayHeaderName } from '../http/headers.js';
import { badRequest, HttpError } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';

/** A header kind we store: a known one, or a plausible name of one we do not know yet. */
const KIND_FORM = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * POST /events (interface 4.7 and part 6). Checks the header kind against the body, the credential the
 * kind calls for, and the body against the schema of its kind and action; then appends the event with
 * everything it derives in one transaction (group-committed with concurrent events) and answers `200 {}`
 * only after that commit. Unknown kinds and actions are stored and acknowledged; a duplicate delivery is
 * acknowledged without a second effect.
 */
export default async function eventCallbacks(app: FastifyInstance, { context }: { context: AppContext }): Promise<void> {
  const { config, headers } = context;
  const recorder = new EventRecorder(context.store, { receivers: config.notifyWebhookUrls });
  app.addHook('onClose', async () => recorder.close());

  // The raw body is kept: it is stored as received and hashed into the delivery key.
  const rawBodies = new WeakMap<FastifyRequest, string>();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    rawBodies.set(request, text);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest('the body is not valid JSON', 'invalid_json'), undefined);
    }
  });

  const eventHeader = displayHeaderName(config.headerBrand, 'Sdk-Event');
  const tokenHeader = displayHeaderName(config.headerBrand, 'Token');
  const signatureHeader = displayHeaderName(config.headerBrand, 'Signature');

  app.post(
    '/events',
    {
      schema: {
        summary: 'Receive a pushed event (comments, mentions, date reminders, content, presence, revisions, System)',
        tags: ['events'],
        headers: Type.Object({
          [headers.sdkEvent]: Type.String({ minLength: 1, description: 'Comment, Discussion, MentionAt, DateMention, FileContent, Collaborator, Revision or System' }),
        }),
        body: Type.Object(
          { kind: Type.Optional(Type.String()), action: Type.Optional(Type.String()), fileId: Type.Optional(Type.String()), userId: Type.Optional(Type.String()) },
          { description: 'The event as interface part 6 describes it for its kind' },
        ),
        response: { 200: Type.Object({}, { description: 'the event is stored' }), ...errorResponses(400, 401, 413, 415, 500) },
      },
    },
    async (request) => {
      const headerKind = String(request.headers[headers.sdkEvent]).trim();
      if (!KIND_FORM.test(headerKind)) throw badRequest(`${eventHeader} is not an event kind`, 'invalid_event_kind');
      const body = request.body as Record<string, unknown>;
      const rawBody = rawBodies.get(request) ?? JSON.stringify(body);
      const kind = knownKind(headerKind);
      const rule = kind ? KIND_RULES[kind] : undefined;
      if (rule && (body.kind !== rule.bodyKind || (rule.bodyType !== undefined && body.type !== rule.bodyType))) {
        const expected = rule.bodyType ? `kind "${rule.bodyKind}" and type "${rule.bodyType}"` : `kind "${rule.bodyKind}"`;
        throw badRequest(`${eventHeader} is ${kind} but the body does not have ${expected}`, 'event_kind_mismatch');
      }
      // PostgreSQL text cannot hold NUL; no real event carries one.
      if (/\\u0000/i.test(rawBody)) throw badRequest('the body contains a NUL character', 'invalid_event');

      const fileId = typeof body.fileId === 'string' ? body.fileId : undefined;
      const policy = (rule ?? UNKNOWN_KIND_RULE).credential;
      const token = request.headers[headers.token];
      const auth = await authenticateEvent({
        policy,
        token: typeof token === 'string' ? token : undefined,
        signature: policy === 'token' ? { status: 'absent' } : checkPlatformSignature(request, context, fileId === undefined ? {} : { fileId }),
        tokenHeader,
        signatureHeader,
        signatureRequired: config.signatureRequired,
        resolveToken: context.resolveToken,
        signatureMessage: (check) => SIGNATURE_FAILURE_MESSAGES[check.failure] ?? 'the platform signature is not valid',
      });
      if (!auth.ok) throw new HttpError(401, auth.code, auth.message);

      let known: KnownEvent | undefined;
      if (kind) {
        const classified = classifyEvent(kind, body);
        if (classified.outcome === 'invalid') throw badRequest(classified.message, 'invalid_event');
        if (classified.outcome === 'known') known = classified.event;
      }
      const action = typeof body.action === 'string' ? body.action : typeof body.type === 'string' ? body.type : null;
      const storedKind = kind ?? headerKind;
      await recorder.record({
        deliveryKey: createHash('sha256').update(`${storedKind}\n${rawBody}`).digest('hex'),
        kind: storedKind,
        action,
        fileId: fileId ?? null,
        userId: typeof body.userId === 'string' ? body.userId : null,
        credential: auth.credential,
        receivedMs: Date.now(),
        rawBody,
        known,
      });
      return {};
    },
  );
}
