import type { ChannelAdapter } from './adapter.js';
import { postJson, vendorAnswer } from './adapter.js';
import { markdownOf, withinBytes } from './markdown.js';

/**
 * WeCom (企业微信) group bot: `POST <webhook>?key=…` with `{ "msgtype": "markdown", "markdown": { "content" } }`
 * (content at most 4096 bytes); a person is @-mentioned in markdown as `<@userid>`. Answers
 * `{ "errcode": 0, "errmsg": "ok" }`. The URL's key is the bot's only credential: no signature.
 */
export const wecomAdapter: ChannelAdapter = {
  async send({ channel, message, timeoutMs }) {
    const imId = message.recipient?.imId ?? null;
    const body = JSON.stringify({ msgtype: 'markdown', markdown: { content: withinBytes(markdownOf(message, imId ? `<@${imId}>` : null), 4096) } });
    return vendorAnswer(await postJson(channel.target, body, {}, timeoutMs), 'errcode', 'errmsg');
  },
};
