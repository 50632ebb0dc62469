import type { Received } from './webhook-receiver.js';
import type { ReceivedMail } from '../notify/smtp-receiver.js';

/**
 * What a receiver that drops repeats by idempotency key would see: for each notification and person
 * (`<notification>|<address>`; the address is empty for a channel's team message), the keys it came
 * under, and how many messages were repeats of a key already seen (the same message again after a kill).
 */
export interface Seen {
  keys: Map<string, Set<string>>;
  /** Messages carrying a key seen before. */
  repeats: number;
  /** Keys whose messages did not all carry the same notifications (a key must name one message). */
  mismatched: string[];
  /** Every message: its key, the notifications it carried, and to whom. */
  messages: Array<{ key: string; ids: string[]; address: string }>;
}

function collect(messages: Array<{ key: string; ids: string[]; address: string }>): Seen {
  const keys = new Map<string, Set<string>>();
  const byKey = new Map<string, string>();
  let repeats = 0;
  const mismatched: string[] = [];
  for (const message of messages) {
    const ids = [...message.ids].sort().join(',');
    const before = byKey.get(message.key);
    if (before === undefined) byKey.set(message.key, ids);
    else {
      repeats += 1;
      if (before !== ids) mismatched.push(message.key);
    }
    for (const id of message.ids) {
      const at = `${id}|${message.address}`;
      keys.set(at, (keys.get(at) ?? new Set()).add(message.key));
    }
  }
  return { keys, repeats, mismatched, messages };
}

/** A webhook channel's requests: the notification (and a digest's others) in the body, `Idempotency-Key`. */
export function seenByWebhookChannel(received: readonly Received[]): Seen {
  return collect(
    received.map((request) => {
      const body = request.body as Received['body'] & { digest?: Array<{ id: string }>; recipient?: { email?: string | null } };
      const key = request.headers['idempotency-key'];
      return {
        key: typeof key === 'string' ? key : '',
        ids: body.digest ? body.digest.map((item) => item.id) : [body.id],
        address: body.recipient?.email ?? '',
      };
    }),
  );
}

/**
 * An e-mail channel's messages: the notifications are those whose tags (`tag:<id>`) the text quotes,
 * the key is `X-Collab-Delivery` (the Message-ID's local part), one entry per envelope recipient.
 */
export function seenByMail(mails: readonly ReceivedMail[], notificationOfTag: ReadonlyMap<string, string>): Seen {
  return collect(
    mails.flatMap((mail) => {
      const header = mail.parsed.headers.get('x-collab-delivery');
      const tags = [...new Set([...(mail.parsed.text ?? '').matchAll(/tag:(m\d+)/g)].map((match) => match[1]!))];
      const ids = tags.map((tag) => notificationOfTag.get(tag) ?? `unknown tag ${tag}`);
      return mail.to.map((address) => ({ key: typeof header === 'string' ? header : '', ids, address }));
    }),
  );
}
