import { signWebhookBody } from '../../events/webhook-signature.js';
import type { ChannelAdapter } from './adapter.js';
import { postJson } from './adapter.js';

/**
 * A generic webhook channel: the notification as NOTIFY_WEBHOOK_URLS receivers get it (`{ id, type,
 * occurredAt, data }`, `X-Collab-Delivery`, and `X-Collab-Signature` with the channel's secret), plus the
 * person a personal notice is for. A 2xx answer is delivered.
 */
export const webhookAdapter: ChannelAdapter = {
  async send({ channel, notifications, message, idempotencyKey, timeoutMs }) {
    const [first] = notifications;
    if (!first) return { ok: true };
    const body = JSON.stringify({
      id: first.id,
      type: first.type,
      occurredAt: first.occurredAt,
      data: first.data,
      ...(notifications.length > 1 ? { digest: notifications } : {}),
      ...(message.recipient ? { recipient: { name: message.recipient.name, email: message.recipient.email } } : {}),
    });
    const headers: Record<string, string> = { 'x-collab-delivery': first.id, 'idempotency-key': idempotencyKey };
    if (channel.secret) headers['x-collab-signature'] = signWebhookBody(body, channel.secret);
    const answer = await postJson(channel.target, body, headers, timeoutMs);
    if ('error' in answer) return { ok: false, error: answer.error };
    return answer.status >= 200 && answer.status < 300 ? { ok: true } : { ok: false, error: `HTTP ${answer.status}` };
  },
};
