import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Check, CheckContext } from '../check.js';
import { EVENT_KINDS, eventCredential, type EventKind } from '../event-bodies.js';
import { callHttp } from '../http-client.js';
import { isRecord } from '../jwt.js';
import { PRODUCTION_VARIANTS, productionEventBody } from '../production-bodies.js';
import { markedByCheck, pushEvent } from '../push.js';

const checkName = (kind: EventKind): string => kind.replace(/[a-z](?=[A-Z])/g, '$&-').toLowerCase();

/**
 * Issue 11: the production platform's bodies (platform-api.md section 5) differ from part 6; a tolerant
 * integrator acknowledges every authentic one with 200 (the platform never retries, so a refusal loses
 * the event). With `--admin-key` the kit also finds each body, as sent, in collab-host's event log
 * (`GET /api/events?kind=`): acknowledged and stored. Each body carries `conformanceCheck` (the check's id),
 * which the platform never sends: the operator tells the kit's events apart by it.
 */
export const productionEventChecks: Check[] = EVENT_KINDS.map((kind) => ({
  id: `production.${checkName(kind)}`,
  group: 'production',
  section: 'platform-api 5',
  title: `POST /events acknowledges ${kind} as production sends it (${PRODUCTION_VARIANTS[kind].join(', ')}) with 200 and stores it`,
  async run(c) {
    const fileId = c.fileId();
    const { baseUrl, token, brand, timeoutMs } = c.probe.options;
    const credentials = c.probe.options.credentials;
    if (eventCredential(kind) === 'signature' && !credentials) return c.skip(`${kind} events are signed: needs --app-id and --app-secret`);
    const since = new Date(Date.now() - 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const id = `conformance-${randomUUID()}`;
    const sent: Array<{ variant: string; body: Record<string, unknown> }> = [];
    for (const variant of PRODUCTION_VARIANTS[kind]) {
      const body = markedByCheck(
        productionEventBody(kind, variant, { fileId, userId: c.found.userId, id, ...(credentials ? { appId: credentials.appId } : {}) }),
        `production.${checkName(kind)}`,
      );
      const answer = await pushEvent({
        to: baseUrl,
        kind,
        action: variant,
        subject: { fileId, userId: c.found.userId, id },
        body,
        token,
        ...(credentials ? { credentials } : {}),
        ...(brand ? { brand } : {}),
        ...(timeoutMs ? { timeoutMs } : {}),
      });
      if (answer.status !== 200)
        c.fail(`${kind} ${variant}: answered ${answer.status} ${answer.text.slice(0, 160) || '(no body)'}, expected 200: the platform does not retry, so this event is lost`);
      else sent.push({ variant, body });
    }
    if (c.probe.options.adminKey && sent.length > 0) await expectStored(c, kind, since, sent);
  },
}));

/** Every acknowledged body is in `GET /api/events?kind=&since=` exactly as it was sent. */
async function expectStored(c: CheckContext, kind: EventKind, since: string, sent: Array<{ variant: string; body: Record<string, unknown> }>): Promise<void> {
  const headers = { authorization: `Bearer ${c.probe.options.adminKey}` };
  const missing = [...sent];
  let cursor: string | null = null;
  for (let page = 0; page < 20 && missing.length > 0; page++) {
    const query = new URLSearchParams({ kind, since, limit: '500', ...(cursor ? { cursor } : {}) });
    const answer = await callHttp(c.probe.options.baseUrl, `/api/events?${query.toString()}`, { headers }, c.probe.options.timeoutMs);
    if (answer.status !== 200 || !isRecord(answer.body) || !Array.isArray(answer.body.items)) {
      c.fail(`GET /api/events?kind=${kind} answered ${answer.status}: cannot see whether the events were stored`);
      return;
    }
    for (const item of answer.body.items) {
      const index = missing.findIndex((entry) => isRecord(item) && isDeepStrictEqual(item.body, entry.body));
      if (index >= 0) missing.splice(index, 1);
    }
    cursor = typeof answer.body.nextCursor === 'string' ? answer.body.nextCursor : null;
    if (cursor === null) break;
  }
  for (const entry of missing) c.fail(`${kind} ${entry.variant}: acknowledged, but not in GET /api/events?kind=${kind} as sent`);
}
