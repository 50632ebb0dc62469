import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Vendor = 'wecom' | 'dingtalk' | 'feishu' | 'slack' | 'webhook';

export interface BotRequest {
  vendor: Vendor;
  url: URL;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  /** What the stand-in answered: `accepted`, or the vendor's refusal. */
  accepted: boolean;
  answer: string;
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const HOUR_MS = 3_600_000;

/**
 * Stand-ins for the vendors' bot endpoints on one real socket (port 0), each checking what its vendor's
 * documentation says it checks, computed here independently of collab-host's code:
 * - WeCom `POST /wecom/cgi-bin/webhook/send?key=K`: the key; `msgtype` markdown with `markdown.content`
 *   of at most 4096 bytes. Refuses with `{ errcode: 93000 }`.
 * - DingTalk `POST /dingtalk/robot/send?access_token=T&timestamp=&sign=`: the token, a timestamp (ms)
 *   within an hour, and `sign` = Base64(HMAC-SHA256(key = secret, timestamp + "\n" + secret)).
 *   Refuses with `{ errcode: 310000, errmsg: "sign not match" }`.
 * - Feishu `POST /feishu/open-apis/bot/v2/hook/H`: body `timestamp` (s) within an hour and `sign` =
 *   Base64(HMAC-SHA256(key = timestamp + "\n" + secret, "")). Refuses with `{ code: 19021 }`.
 * - Slack `POST /slack/services/T/B/X`: a `text`; answers `ok`, or 400 `no_text`.
 * - a generic webhook `POST /webhook`: answers 200.
 * `state.status[vendor]` overrides that vendor's HTTP status (500: down) while it is set.
 */
export async function startBotReceivers(secrets: { wecomKey: string; dingtalkToken: string; dingtalkSecret: string; feishuHook: string; feishuSecret: string; slackPath: string }) {
  const received: BotRequest[] = [];
  const state: { status: Partial<Record<Vendor, number>> } = { status: {} };
  const server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      const body = JSON.parse(raw) as Record<string, unknown>;
      const vendor = url.pathname.split('/')[1] as Vendor;
      const { status, answer } = judge(vendor, url, body);
      received.push({ vendor, url, headers: request.headers, raw, body, accepted: status === 200 && /"(errcode|code)":0|^ok$/.test(answer), answer });
      response.statusCode = state.status[vendor] ?? status;
      response.setHeader('content-type', vendor === 'slack' ? 'text/plain' : 'application/json');
      response.end(answer);
    });
  });
  const judge = (vendor: Vendor, url: URL, body: Record<string, unknown>): { status: number; answer: string } => {
    const json = (value: unknown) => ({ status: 200, answer: JSON.stringify(value) });
    switch (vendor) {
      case 'wecom': {
        if (url.searchParams.get('key') !== secrets.wecomKey) return json({ errcode: 93000, errmsg: 'invalid webhook url' });
        const content = (body.markdown as { content?: unknown } | undefined)?.content;
        if (body.msgtype !== 'markdown' || typeof content !== 'string' || Buffer.byteLength(content) > 4096) return json({ errcode: 40008, errmsg: 'invalid message type' });
        return json({ errcode: 0, errmsg: 'ok' });
      }
      case 'dingtalk': {
        if (url.searchParams.get('access_token') !== secrets.dingtalkToken) return json({ errcode: 300001, errmsg: 'token is not exist' });
        const timestamp = url.searchParams.get('timestamp') ?? '';
        const expected = createHmac('sha256', secrets.dingtalkSecret).update(`${timestamp}\n${secrets.dingtalkSecret}`).digest('base64');
        if (Math.abs(Date.now() - Number(timestamp)) > HOUR_MS || !sameText(url.searchParams.get('sign') ?? '', expected))
          return json({ errcode: 310000, errmsg: 'sign not match' });
        return json({ errcode: 0, errmsg: 'ok' });
      }
      case 'feishu': {
        if (url.pathname !== `/feishu/open-apis/bot/v2/hook/${secrets.feishuHook}`) return json({ code: 19001, msg: 'param invalid: incoming webhook access token invalid' });
        const timestamp = String(body.timestamp ?? '');
        const expected = createHmac('sha256', `${timestamp}\n${secrets.feishuSecret}`).update('').digest('base64');
        if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 3600 || !sameText(String(body.sign ?? ''), expected)) {
          return json({ code: 19021, msg: 'sign match fail or timestamp is not within one hour from current time' });
        }
        return json({ code: 0, msg: 'success', data: {} });
      }
      case 'slack':
        if (url.pathname !== `/slack/services/${secrets.slackPath}`) return { status: 404, answer: 'no_service' };
        return typeof body.text === 'string' && body.text !== '' ? { status: 200, answer: 'ok' } : { status: 400, answer: 'no_text' };
      default:
        return { status: 200, answer: 'ok' };
    }
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    urls: {
      wecom: `${base}/wecom/cgi-bin/webhook/send?key=${secrets.wecomKey}`,
      dingtalk: `${base}/dingtalk/robot/send?access_token=${secrets.dingtalkToken}`,
      feishu: `${base}/feishu/open-apis/bot/v2/hook/${secrets.feishuHook}`,
      slack: `${base}/slack/services/${secrets.slackPath}`,
      webhook: `${base}/webhook`,
    },
    received,
    state,
    of: (vendor: Vendor) => received.filter((request) => request.vendor === vendor),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
