import type { Channel } from '../channel.js';
import type { Message, OutboxNotification } from '../message.js';

/** What one send came to. `retryAfterMs`: the receiver asked for a pause; `permanent`: retrying cannot help. */
export type SendResult = { ok: true } | { ok: false; error: string; retryAfterMs?: number; permanent?: boolean };

export interface SendRequest {
  channel: Channel;
  message: Message;
  /** The notifications the message carries (the generic webhook sends them as they are). */
  notifications: readonly OutboxNotification[];
  /** The same for every attempt of this delivery: e-mail Message-ID, X-Collab-Delivery. */
  idempotencyKey: string;
  /** The wall clock, for the timestamps of signatures (the vendor compares them with its own clock). */
  nowMs: number;
  timeoutMs: number;
}

/** One vendor's way of sending a message. */
export interface ChannelAdapter {
  send(request: SendRequest): Promise<SendResult>;
}

/** An HTTP answer, read whole (bots answer a few bytes). */
export interface PostAnswer {
  status: number;
  text: string;
  retryAfter: string | null;
}

/** POSTs JSON; a refused connection, a time-out or a redirect is a failed send, described without secrets. */
export async function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostAnswer | { error: string }> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = (await response.text()).slice(0, 2000);
    return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
  } catch (failure) {
    if (failure instanceof Error && failure.name === 'TimeoutError') return { error: `no answer within ${timeoutMs} ms` };
    return { error: describeFailure(failure) };
  }
}

export function describeFailure(failure: unknown): string {
  if (!(failure instanceof Error)) return String(failure);
  const cause = (failure as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? failure.message;
}

/** A 429's or 503's Retry-After (seconds), in ms. */
export function retryAfterMs(answer: PostAnswer): number | undefined {
  const seconds = answer.retryAfter === null ? NaN : Number(answer.retryAfter);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 3600) * 1000 : undefined;
}

/**
 * The bots of WeCom, DingTalk and Feishu answer HTTP 200 with a JSON code: 0 is success, anything else
 * the vendor's error (`errcode`/`errmsg`, or `code`/`msg`), which becomes the delivery's last error.
 */
export function vendorAnswer(answer: PostAnswer | { error: string }, codeField: string, messageField: string): SendResult {
  if ('error' in answer) return { ok: false, error: answer.error };
  if (answer.status === 429) return { ok: false, error: 'HTTP 429', ...optionalRetry(answer) };
  if (answer.status < 200 || answer.status >= 300) return { ok: false, error: `HTTP ${answer.status}` };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return { ok: false, error: 'the answer is not JSON' };
  }
  const code = parsed[codeField] ?? parsed.StatusCode;
  if (code === 0) return { ok: true };
  return { ok: false, error: `${codeField} ${String(code)}: ${String(parsed[messageField] ?? parsed.StatusMessage ?? '')}`.slice(0, 500) };
}

function optionalRetry(answer: PostAnswer): { retryAfterMs?: number } {
  const after = retryAfterMs(answer);
  return after === undefined ? {} : { retryAfterMs: after };
}
