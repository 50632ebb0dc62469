import { readFileSync } from 'node:fs';
import { parseDuration } from '../shared/duration.js';
import { ConfigError } from './config-error.js';

/** One channel described by the environment (docs/notifications.md, "In the environment"). */
export interface EnvChannel {
  kind: 'email' | 'wecom' | 'dingtalk' | 'feishu' | 'slack';
  target: string;
  secret: string | null;
  from: string | null;
}

/** Messages to people and teams (docs/notifications.md). */
export interface NotifyConfig {
  /** SMTP_URL/MAIL_FROM and the NOTIFY_<BOT>_WEBHOOK variables: channels of every team, personal. */
  readonly envChannels: readonly EnvChannel[];
  /** NOTIFY_BOT_SUBSCRIPTIONS: the types the environment's bots get as a whole (besides the personal @s). */
  readonly envBotSubscriptions: readonly string[];
  /** DOCUMENT_URL_TEMPLATE (default FILE_URL_TEMPLATE): the link of a document in messages, `{fileId}` replaced. */
  readonly documentUrlTemplate: string;
  /** NOTIFY_DIGEST_WINDOW (default 2m; 0 turns digests off): mentions of one person within it make one message. */
  readonly digestWindowMs: number;
  /** NOTIFY_LOCALE (default zh-CN): the language of people whose directory entry names none, and of the environment's bots. */
  readonly defaultLocale: string;
  /** NOTIFY_TEMPLATES: the operator's templates (a JSON file), over the built-in ones; {} when unset. */
  readonly templates: Readonly<Record<string, Record<string, { subject?: string; line?: string }>>>;
}

type Get = (name: string) => string | undefined;

const BOTS = [
  { kind: 'wecom', url: 'NOTIFY_WECOM_WEBHOOK', secret: undefined },
  { kind: 'dingtalk', url: 'NOTIFY_DINGTALK_WEBHOOK', secret: 'NOTIFY_DINGTALK_SECRET' },
  { kind: 'feishu', url: 'NOTIFY_FEISHU_WEBHOOK', secret: 'NOTIFY_FEISHU_SECRET' },
  { kind: 'slack', url: 'NOTIFY_SLACK_WEBHOOK', secret: undefined },
] as const;

export function notifyConfig(get: Get, fileUrlTemplate: string): NotifyConfig {
  const envChannels: EnvChannel[] = [];
  const smtpUrl = get('SMTP_URL');
  if (smtpUrl !== undefined) {
    if (!/^smtps?:\/\/[^/]/i.test(smtpUrl)) throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
    const from = get('MAIL_FROM');
    if (from === undefined) throw new ConfigError('MAIL_FROM is required when SMTP_URL is set');
    envChannels.push({ kind: 'email', target: smtpUrl, secret: null, from });
  }
  for (const bot of BOTS) {
    const url = get(bot.url);
    if (url === undefined) continue;
    if (!/^https?:\/\/[^/]/i.test(url)) throw new ConfigError(`${bot.url} must start with http(s)://`);
    envChannels.push({ kind: bot.kind, target: url, secret: bot.secret ? (get(bot.secret) ?? null) : null, from: null });
  }
  const documentUrlTemplate = get('DOCUMENT_URL_TEMPLATE') ?? fileUrlTemplate;
  if (!documentUrlTemplate.includes('{fileId}')) throw new ConfigError('DOCUMENT_URL_TEMPLATE must contain {fileId}');
  const windowText = get('NOTIFY_DIGEST_WINDOW') ?? '2m';
  const windowSeconds = parseDuration(windowText);
  if (windowSeconds === undefined || windowSeconds > 86_400) throw new ConfigError('NOTIFY_DIGEST_WINDOW must be a duration from 0 to 1d, such as 0, 90s or 2m');
  const defaultLocale = get('NOTIFY_LOCALE') ?? 'zh-CN';
  if (!['zh-CN', 'en'].includes(defaultLocale)) throw new ConfigError('NOTIFY_LOCALE must be zh-CN or en');
  return Object.freeze({
    envChannels: Object.freeze(envChannels),
    envBotSubscriptions: Object.freeze(
      (get('NOTIFY_BOT_SUBSCRIPTIONS') ?? '')
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== ''),
    ),
    documentUrlTemplate,
    digestWindowMs: windowSeconds * 1000,
    defaultLocale,
    templates: readTemplates(get('NOTIFY_TEMPLATES')),
  });
}

/** `{ "<locale>": { "<type>": { "subject": "…", "line": "…" } } }`, read once at start-up. */
function readTemplates(path: string | undefined): NotifyConfig['templates'] {
  if (path === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`NOTIFY_TEMPLATES must name a readable JSON file (${(error as Error).message})`);
  }
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    Object.values(parsed).every(
      (types) =>
        typeof types === 'object' &&
        types !== null &&
        Object.values(types as object).every(
          (template) =>
            typeof template === 'object' &&
            template !== null &&
            Object.entries(template as object).every(([key, text]) => ['subject', 'line'].includes(key) && typeof text === 'string'),
        ),
    );
  if (!valid) throw new ConfigError('NOTIFY_TEMPLATES must hold { "<locale>": { "<type>": { "subject"?: text, "line"?: text } } }');
  return parsed as NotifyConfig['templates'];
}
