import type { Locale } from './channel.js';

/** One message kind's words: the subject (e-mail subject, bot title) and the line of each item. */
export interface Template {
  subject: string;
  line: string;
}

/**
 * The built-in templates, per language and message kind. A kind is a notification type, or one of the
 * personal variants: `comment.reply` (a reply to one's comment), `mention.digest` (several mentions in
 * one message), `mention.team` (a mention as a team channel sees it). Placeholders in braces: {actor},
 * {document}, {recipient}, {excerpt}, {count}, {content}, {remindAt}, {title}, {action}, {version},
 * {url}, {status}, {error}, {type}. The operator's NOTIFY_TEMPLATES file overrides any of them.
 */
export const BUILT_IN_TEMPLATES: Record<Locale, Record<string, Template>> = {
  'zh-CN': {
    'mention.created': { subject: '{actor} 在《{document}》中提到了你', line: '{actor} 在《{document}》中提到了你' },
    'mention.digest': { subject: '你有 {count} 条新的提及', line: '{actor} 在《{document}》中提到了你' },
    'mention.team': { subject: '{actor} 在《{document}》中提到了 {recipient}', line: '{actor} 在《{document}》中提到了 {recipient}' },
    'comment.reply': { subject: '{actor} 回复了你在《{document}》中的评论', line: '{actor} 回复了你在《{document}》中的评论' },
    'comment.created': { subject: '{actor} 评论了《{document}》', line: '{actor} 评论了《{document}》' },
    'reminder.due': { subject: '提醒：{content}', line: '《{document}》中的提醒（{remindAt}）：{content}' },
    'file.shared': { subject: '{actor} 与你共享了《{document}》', line: '{actor} 与你共享了《{document}》' },
    'file.updated': { subject: '{actor} 编辑了《{document}》', line: '{actor} 编辑了《{document}》（版本 {version}）' },
    'revision.changed': { subject: '{actor} 更新了《{document}》的版本记录', line: '{actor} 更新了《{document}》的版本记录：{title}' },
    'callback.failed': { subject: '回调失败：{url}', line: '回调 {url} 返回 {status}' },
    other: { subject: '通知：{type}', line: '通知：{type}' },
  },
  en: {
    'mention.created': { subject: '{actor} mentioned you in "{document}"', line: '{actor} mentioned you in "{document}"' },
    'mention.digest': { subject: 'You were mentioned {count} times', line: '{actor} mentioned you in "{document}"' },
    'mention.team': { subject: '{actor} mentioned {recipient} in "{document}"', line: '{actor} mentioned {recipient} in "{document}"' },
    'comment.reply': { subject: '{actor} replied to your comment in "{document}"', line: '{actor} replied to your comment in "{document}"' },
    'comment.created': { subject: '{actor} commented on "{document}"', line: '{actor} commented on "{document}"' },
    'reminder.due': { subject: 'Reminder: {content}', line: 'Reminder in "{document}" ({remindAt}): {content}' },
    'file.shared': { subject: '{actor} shared "{document}" with you', line: '{actor} shared "{document}" with you' },
    'file.updated': { subject: '{actor} edited "{document}"', line: '{actor} edited "{document}" (version {version})' },
    'revision.changed': { subject: '{actor} changed a revision of "{document}"', line: '{actor} changed a revision of "{document}": {title}' },
    'callback.failed': { subject: 'Callback failed: {url}', line: 'The callback {url} answered {status}' },
    other: { subject: 'Notification: {type}', line: 'Notification: {type}' },
  },
};

/** The fixed words around the items. */
export const WORDS: Record<Locale, { open: string; footer: string; someone: string; untitled: string }> = {
  'zh-CN': { open: '打开文档', footer: '来自 collab-host 的通知。', someone: '有人', untitled: '未命名文档' },
  en: { open: 'Open the document', footer: 'A notification from collab-host.', someone: 'Someone', untitled: 'an untitled document' },
};

export type TemplateOverrides = Readonly<Record<string, Readonly<Record<string, { subject?: string; line?: string }>>>>;

/** The template of a kind in a language: the operator's words over the built-in ones. */
export function templateFor(overrides: TemplateOverrides, locale: Locale, kind: string): Template {
  const builtIn = BUILT_IN_TEMPLATES[locale][kind] ?? BUILT_IN_TEMPLATES[locale].other!;
  return { ...builtIn, ...overrides[locale]?.[kind] };
}

/** Fills `{name}` placeholders; unknown names stay as written. */
export function fill(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
