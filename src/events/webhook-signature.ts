import { createHmac, timingSafeEqual } from 'node:crypto';

/** `X-Collab-Signature`: `sha256=` and the hex HMAC-SHA256 of the raw body with NOTIFY_WEBHOOK_SECRET. */
export function signWebhookBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does: recompute the HMAC over the raw body and compare in constant time. */
export function verifyWebhookSignature(body: string, header: string | undefined, secret: string): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signWebhookBody(body, secret));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
