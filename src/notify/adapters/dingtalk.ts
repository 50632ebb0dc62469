import { createHmac } from 'node:crypto';
import type { ChannelAdapter } from './adapter.js';
import { postJson, vendorAnswer } from './adapter.js';
import { markdownOf, withinBytes } from './markdown.js';

/**
 * DingTalk's signature (加签): the HMAC-SHA256 of `timestamp + "\n" + secret` keyed with the secret,
 * Base64; sent URL-encoded as `&timestamp=<ms>&sign=<sign>` after the webhook's access_token. DingTalk
 * refuses a timestamp more than an hour away from its clock.
 */
export function dingtalkSign(timestampMs: number, secret: string): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`, 'utf8').digest('base64');
}

/**
 * DingTalk (钉钉) custom group bot: `POST <webhook>?access_token=…[&timestamp&sign]` with
 * `{ "msgtype": "markdown", "markdown": { "title", "text" }, "at": { "atUserIds": [...] } }`; a person
 * is @-mentioned by their userId in `at.atUserIds` and as `@userId` in the text. Answers
 * `{ "errcode": 0, "errmsg": "ok" }` (310000 for a wrong signature).
 */
export const dingtalkAdapter: ChannelAdapter = {
  async send({ channel, message, nowMs, timeoutMs }) {
    const imId = message.recipient?.imId ?? null;
    const body = JSON.stringify({
      msgtype: 'markdown',
      markdown: { title: message.subject, text: withinBytes(markdownOf(message, imId ? `@${imId}` : null), 5000) },
      at: { atUserIds: imId ? [imId] : [], isAtAll: false },
    });
    const url = new URL(channel.target);
    if (channel.secret) {
      url.searchParams.set('timestamp', String(nowMs));
      url.searchParams.set('sign', dingtalkSign(nowMs, channel.secret));
    }
    return vendorAnswer(await postJson(url.toString(), body, {}, timeoutMs), 'errcode', 'errmsg');
  },
};
