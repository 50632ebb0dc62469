import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Collab-Signature`: `sha256=` and the hex HMAC-SHA256 of the raw body with NOTIFY_WEBHOOK_SECRET.
 * During a key rotation (a list: the current secret, then NOTIFY_WEBHOOK_SECRET_PREVIOUS) one entry per
 * secret, comma-separated: `sha256=<new>, sha256=<old>`.
 */
export function signWebhookBody(body: string, secrets: string | readonly string[]): string {
  return (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`).join(', ');
}

/**
 * What a receiver does: split the header on commas, recompute the HMAC over the raw body with its own
 * secret and accept when any entry matches, each compared in constant time.
 */
export function verifyWebhookSignature(body: string, header: string | undefined, secret: string): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signWebhookBody(body, secret));
  return header
    .split(',')
    .map((entry) => Buffer.from(entry.trim()))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}
