import { createTransport } from 'nodemailer';
import type { Message } from '../message.js';
import type { ChannelAdapter } from './adapter.js';
import { describeFailure } from './adapter.js';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The plain-text part: each item's line, its excerpt in quotes, its link on a line of its own. */
export function textOf(message: Message): string {
  const blocks = message.items.map((item) =>
    [item.line, item.excerpt ? `“${item.excerpt}”` : '', item.link ? `${item.link.label}: ${item.link.url}` : ''].filter((line) => line !== '').join('\n'),
  );
  return `${blocks.join('\n\n')}\n\n-- \n${message.footer}\n`;
}

/** The HTML part: the same, with the link as a link. */
export function htmlOf(message: Message): string {
  const items = message.items
    .map(
      (item) =>
        `<div style="margin:0 0 16px"><p style="margin:0 0 6px"><strong>${escapeHtml(item.line)}</strong></p>` +
        (item.excerpt ? `<blockquote style="margin:0 0 6px;padding-left:10px;border-left:3px solid #ccc;color:#444">${escapeHtml(item.excerpt)}</blockquote>` : '') +
        (item.link ? `<p style="margin:0"><a href="${escapeHtml(item.link.url)}">${escapeHtml(item.link.label)}</a></p>` : '') +
        '</div>',
    )
    .join('');
  return `<!doctype html><html lang="${message.locale}"><head><meta charset="utf-8"><title>${escapeHtml(message.subject)}</title></head><body>${items}<p style="color:#888;font-size:12px">${escapeHtml(message.footer)}</p></body></html>`;
}

/** Whether an SMTP failure is the server's final word on this message (5xx: unknown mailbox, refused sender). */
function permanent(failure: unknown): boolean {
  const code = (failure as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/**
 * E-mail over SMTP (nodemailer): `smtps://` is TLS from the first byte; `smtp://` upgrades with STARTTLS
 * whenever the server offers it (`?requireTLS=true` refuses a server that does not). HTML and plain-text
 * parts, UTF-8; the Message-ID is made from the delivery's idempotency key, so every attempt of one
 * delivery carries the same id. One connection per message; a 5xx answer (a bad address) fails the
 * delivery at once instead of retrying it.
 */
export const emailAdapter: ChannelAdapter = {
  async send({ channel, message, idempotencyKey, timeoutMs }) {
    const to = message.recipient?.email;
    if (!to) return { ok: false, error: 'no e-mail address to send to', permanent: true };
    const transport = createTransport({ url: channel.target, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    try {
      await transport.sendMail({
        from: channel.from ?? undefined,
        to: { name: message.recipient?.name ?? '', address: to },
        subject: message.subject,
        text: textOf(message),
        html: htmlOf(message),
        messageId: `<${idempotencyKey}@collab-host>`,
        headers: { 'X-Collab-Delivery': idempotencyKey, 'Auto-Submitted': 'auto-generated', 'Content-Language': message.locale },
      });
      return { ok: true };
    } catch (failure) {
      const code = (failure as { responseCode?: unknown }).responseCode;
      const text = (failure as { response?: unknown }).response;
      const error = typeof code === 'number' && typeof text === 'string' ? text.slice(0, 300) : describeFailure(failure);
      return { ok: false, error, permanent: permanent(failure) };
    } finally {
      transport.close();
    }
  },
};
