import type { Message } from '../message.js';

/** Keeps text from being read as markdown (WeCom and DingTalk markdown): brackets, emphasis, headings. */
function plain(text: string): string {
  return text.replace(/([\\`*_[\]#>])/g, '\\$1');
}

/**
 * The message as the markdown WeCom and DingTalk group bots take: the subject in bold, each item's line,
 * its excerpt quoted and its link, then the @ of the person (`mention`, in the vendor's own syntax).
 */
export function markdownOf(message: Message, mention: string | null): string {
  const parts = [`**${plain(message.subject)}**`];
  for (const item of message.items) {
    if (message.items.length > 1 || item.line !== message.subject) parts.push(plain(item.line));
    if (item.excerpt) parts.push(`> ${plain(item.excerpt)}`);
    if (item.link) parts.push(`[${plain(item.link.label)}](${item.link.url})`);
  }
  if (mention) parts.push(mention);
  return parts.join('\n\n');
}

/** Cuts text to at most `maxBytes` of UTF-8 (WeCom takes 4096 bytes of markdown). */
export function withinBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let cut = text.slice(0, maxBytes);
  while (Buffer.byteLength(cut) > maxBytes - 3) cut = cut.slice(0, -1);
  return `${cut}…`;
}
