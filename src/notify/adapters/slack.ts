import type { ChannelAdapter } from './adapter.js';
import { postJson, retryAfterMs } from './adapter.js';
import type { Message } from '../message.js';

/** Slack's three control characters in text (its "Formatting text" guide): &, < and >. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function mrkdwnOf(message: Message): string {
  const parts = [`*${escape(message.subject)}*`];
  for (const item of message.items) {
    if (message.items.length > 1 || item.line !== message.subject) parts.push(escape(item.line));
    if (item.excerpt) parts.push(`>${escape(item.excerpt)}`);
    if (item.link) parts.push(`<${item.link.url}|${escape(item.link.label)}>`);
  }
  if (message.recipient?.imId) parts.push(`<@${message.recipient.imId}>`);
  return parts.join('\n');
}

/**
 * Slack incoming webhook: `POST https://hooks.slack.com/services/…` with `{ "text", "blocks": [{ "type":
 * "section", "text": { "type": "mrkdwn", "text" } }] }`; a person is @-mentioned as `<@U…>`, a link is
 * `<url|label>`. Answers 200 `ok`; errors are 4xx with a word (`invalid_payload`, `no_service`, …), and
 * 429 with Retry-After. The URL is the credential: no signature.
 */
export const slackAdapter: ChannelAdapter = {
  async send({ channel, message, timeoutMs }) {
    const text = mrkdwnOf(message);
    const body = JSON.stringify({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
    const answer = await postJson(channel.target, body, {}, timeoutMs);
    if ('error' in answer) return { ok: false, error: answer.error };
    if (answer.status === 200) return { ok: true };
    const error = `HTTP ${answer.status}: ${answer.text.slice(0, 200)}`;
    if (answer.status === 429) {
      const after = retryAfterMs(answer);
      return { ok: false, error, ...(after === undefined ? {} : { retryAfterMs: after }) };
    }
    // A removed hook, an archived channel, a refused post: sending again cannot help (re-send can, after a fix).
    return { ok: false, error, permanent: [403, 404, 410].includes(answer.status) };
  },
};
