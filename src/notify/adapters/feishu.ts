import { createHmac } from 'node:crypto';
import type { ChannelAdapter } from './adapter.js';
import { postJson, vendorAnswer } from './adapter.js';

/**
 * Feishu / Lark's signature (签名校验): the HMAC-SHA256 of an empty message keyed with
 * `timestamp + "\n" + secret` (timestamp in seconds), Base64; sent in the body as `timestamp` and
 * `sign`. Feishu refuses a timestamp more than an hour away from its clock.
 */
export function feishuSign(timestampSeconds: number, secret: string): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

type PostElement = { tag: 'text'; text: string } | { tag: 'a'; text: string; href: string } | { tag: 'at'; user_id: string };

/**
 * Feishu / Lark custom bot: `POST <webhook>` with `{ "msg_type": "post", "content": { "post": { "zh_cn" |
 * "en_us": { "title", "content": [[elements]] } } } }` (plus `timestamp` and `sign` when the bot signs);
 * a person is @-mentioned with `{ "tag": "at", "user_id": "<open_id>" }`. Answers `{ "code": 0 }` (19021
 * for a wrong signature).
 */
export const feishuAdapter: ChannelAdapter = {
  async send({ channel, message, nowMs, timeoutMs }) {
    const content: PostElement[][] = [];
    for (const item of message.items) {
      if (message.items.length > 1 || item.line !== message.subject) content.push([{ tag: 'text', text: item.line }]);
      if (item.excerpt) content.push([{ tag: 'text', text: `“${item.excerpt}”` }]);
      if (item.link) content.push([{ tag: 'a', text: item.link.label, href: item.link.url }]);
    }
    const imId = message.recipient?.imId;
    if (imId) content.push([{ tag: 'at', user_id: imId }]);
    const language = message.locale === 'en' ? 'en_us' : 'zh_cn';
    const timestamp = Math.floor(nowMs / 1000);
    const body = JSON.stringify({
      ...(channel.secret ? { timestamp: String(timestamp), sign: feishuSign(timestamp, channel.secret) } : {}),
      msg_type: 'post',
      content: { post: { [language]: { title: message.subject, content } } },
    });
    return vendorAnswer(await postJson(channel.target, body, {}, timeoutMs), 'code', 'msg');
  },
};
