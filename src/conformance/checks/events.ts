import { randomUUID } from 'node:crypto';
import type { Check } from '../check.js';
import { EVENT_ACTIONS, EVENT_KINDS, eventCredential, type EventKind } from '../event-bodies.js';
import { isRecord } from '../jwt.js';
import { pushEvent } from '../push.js';

// Each check sends every action of its kind in order, a create before its undo (EVENT_ACTIONS).
const SECTIONS: Record<EventKind, string> = {
  Comment: '6.1',
  Discussion: '6.2',
  MentionAt: '6.3',
  DateMention: '6.4',
  FileContent: '6.5',
  Collaborator: '6.6',
  Revision: '6.7',
  System: '6.8',
};

const checkName = (kind: EventKind): string => kind.replace(/[a-z](?=[A-Z])/g, '$&-').toLowerCase();

/** Part 4.7 and 6: `POST /events` answers every kind with `200 {}`. The events are real: they reach the server's log. */
export const eventChecks: Check[] = EVENT_KINDS.map((kind) => ({
  id: `events.${checkName(kind)}`,
  group: 'events',
  section: SECTIONS[kind],
  title: `POST /events ${kind} (${EVENT_ACTIONS[kind].join(', ')}${eventCredential(kind) === 'signature' ? ', signed' : ''}) answers 200 {}`,
  async run(c) {
    const fileId = c.fileId();
    const credentials = c.probe.options.credentials;
    if (eventCredential(kind) === 'signature' && !credentials) return c.skip(`${kind} events are signed: needs --app-id and --app-secret`);
    const id = `conformance-${randomUUID()}`;
    for (const action of EVENT_ACTIONS[kind]) {
      const answer = await pushEvent({
        to: c.probe.options.baseUrl,
        kind,
        action,
        subject: { fileId, userId: c.found.userId, id },
        sentByCheck: `events.${checkName(kind)}`,
        token: c.probe.options.token,
        ...(credentials ? { credentials } : {}),
        ...(c.probe.options.brand ? { brand: c.probe.options.brand } : {}),
        ...(c.probe.options.timeoutMs ? { timeoutMs: c.probe.options.timeoutMs } : {}),
      });
      const empty = isRecord(answer.body) && Object.keys(answer.body).length === 0;
      if (answer.status !== 200 || !empty) {
        c.fail(`${kind} ${action}: answered ${answer.status} ${answer.text.slice(0, 100) || '(no body)'}, expected 200 {}`);
      }
    }
  },
}));
