import { randomBytes } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { refuseWeakSecrets } from './production-secrets.js';
import { ConfigError } from './config-error.js';
import { readReportingEveryProblem } from './config-problems.js';
import { databaseConfig, type DatabaseConfig } from './database.js';
import { previousSecretsConfig, type PreviousSecretsConfig } from './key-rotation.js';
import { parseLogLevel } from './logging.js';
import { observabilityConfig, type ObservabilityConfig } from './observability.js';
import { serverLimitsConfig, type ServerLimitsConfig } from './server-limits.js';
import { parseBoolean } from './values.js';
import { readStorageConfig, type StorageConfig } from './storage.js';
import { loadEventsConfig, type EventsConfig } from './events.js';
import { deprecationWarnings } from './deprecated.js';
import { parseDuration } from '../shared/duration.js';
import { platformConfig, type PlatformConfig } from './platform.js';
import { readSyncConfig, type SyncConfig } from './sync.js';
import { consoleConfig, type ConsoleConfig } from './console.js';
import { retentionConfig, type RetentionConfig } from './retention.js';
import { notifyConfig, type NotifyConfig } from './notify.js';

export { ConfigError } from './config-error.js';
export { ConfigProblems, misspelledVariables } from './config-problems.js';

/** The service's configuration: read from the environment once, validated, then frozen. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly appId: string;
  readonly appSecret: string;
  /** The platform's API server, without a trailing slash; undefined when not configured. */
  readonly platformApiUrl: string | undefined;
  /** This service's own public address, without a trailing slash. */
  readonly publicUrl: string;
  readonly tokenSecret: string;
  /** Whether TOKEN_SECRET was generated for this start only (tokens die with the process). */
  readonly tokenSecretIsEphemeral: boolean;
  /** Lifetime of issued user tokens, in seconds. */
  readonly tokenTtlSeconds: number;
  readonly signatureRequired: boolean;
  /** SIGNATURE_MAX_LIFETIME: the longest lifetime of a received platform signature, in seconds (default 24 h). */
  readonly signatureMaxLifetimeSeconds: number;
  /** Bearer key of the management API; undefined = the API is off. */
  readonly adminApiKey: string | undefined;
  /** Template of a file's page in the integrator's system; `{fileId}` and `{PUBLIC_URL}` are replaced. */
  readonly fileUrlTemplate: string;
  readonly notifyWebhookUrls: readonly string[];
  readonly notifyWebhookSecret: string | undefined;
  /** The brand word in every platform header: `X-{brand}-Token` and so on. */
  readonly headerBrand: string;
  /** Lines of the default watermark; `{name}`, `{email}`, `{id}` and `{date}` are replaced. */
  readonly watermarkTemplate: readonly string[];
  readonly production: boolean;
  /** One of pino's levels (validated). */
  readonly logLevel: string;
  readonly platform: PlatformConfig;
  /** SCIM provisioning and LDAP/AD sync (docs/sync.md). */
  readonly sync: SyncConfig;
  readonly database: DatabaseConfig;
  readonly limits: ServerLimitsConfig;
  readonly observability: ObservabilityConfig;
  readonly previousSecrets: PreviousSecretsConfig;
  readonly storage: StorageConfig;
  readonly console: ConsoleConfig;
  readonly events: EventsConfig;
  /** One warning line per deprecated variable that is set (printed with the banner). */
  readonly deprecations: readonly string[];
  /** How long events, notifications, activity, presence and the audit log are kept. */
  readonly retention: RetentionConfig;
  /** Messages to people and teams: e-mail, WeCom, DingTalk, Feishu, Slack (docs/notifications.md). */
  readonly notify: NotifyConfig;
}

type Env = Record<string, string | undefined>;

const DEMO_APP_ID = 'demo-app';
const DEMO_APP_SECRET = 'demo-app-secret-change-me';

/**
 * The configuration of `env`. Every problem is found in one go: a ConfigError for one, a ConfigProblems
 * (one line each) for several (config/config-problems.ts).
 */
export function loadConfig(env: Env = process.env): Config {
  return readReportingEveryProblem(readConfig, env);
}

function readConfig(env: Env): Config {
  const production = env.NODE_ENV === 'production';
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const port = parsePort(get('PORT'));
  const host = get('HOST') ?? '127.0.0.1';
  const databaseUrl = parseDatabaseUrl(get('DATABASE_URL') ?? 'sqlite:./data/collab-host.db');

  const appId = get('APP_ID') ?? requiredInProduction('APP_ID', production, DEMO_APP_ID);
  const appSecret = get('APP_SECRET') ?? requiredInProduction('APP_SECRET', production, DEMO_APP_SECRET);

  const platformApiUrl = optionalHttpUrl('PLATFORM_API_URL', get('PLATFORM_API_URL'));
  const publicUrl = optionalHttpUrl('PUBLIC_URL', get('PUBLIC_URL')) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const givenTokenSecret = get('TOKEN_SECRET');
  if (!givenTokenSecret && production) throw new ConfigError('TOKEN_SECRET is required when NODE_ENV=production');
  refuseWeakSecrets(get, production);
  if (givenTokenSecret && givenTokenSecret.length < 16) {
    throw new ConfigError('TOKEN_SECRET must be at least 16 characters');
  }
  const tokenSecret = givenTokenSecret ?? randomBytes(32).toString('hex');
  // With one key for both, a user token would verify as a platform signature (both are HS256 JWTs).
  if (tokenSecret === appSecret) throw new ConfigError('TOKEN_SECRET must differ from APP_SECRET');

  const ttlText = get('TOKEN_TTL') ?? '24h';
  const tokenTtlSeconds = parseDuration(ttlText);
  if (tokenTtlSeconds === undefined || tokenTtlSeconds <= 0) {
    throw new ConfigError('TOKEN_TTL must be a duration such as 3600, 90s, 30m, 24h or 7d');
  }

  const signatureRequired = parseBoolean('SIGNATURE_REQUIRED', get('SIGNATURE_REQUIRED'), true);
  const signatureMaxLifetimeSeconds = parseDuration(get('SIGNATURE_MAX_LIFETIME') ?? '24h');
  if (signatureMaxLifetimeSeconds === undefined || signatureMaxLifetimeSeconds < 60 || signatureMaxLifetimeSeconds > 30 * 86_400) {
    throw new ConfigError('SIGNATURE_MAX_LIFETIME must be a duration from 1m to 30d, such as 24h');
  }
  const adminApiKey = get('ADMIN_API_KEY');
  if (adminApiKey !== undefined && adminApiKey.length < 16) {
    throw new ConfigError('ADMIN_API_KEY must be at least 16 characters');
  }

  const fileUrlTemplate = (get('FILE_URL_TEMPLATE') ?? '{PUBLIC_URL}/files/{fileId}').replaceAll('{PUBLIC_URL}', publicUrl);
  if (!fileUrlTemplate.includes('{fileId}')) throw new ConfigError('FILE_URL_TEMPLATE must contain {fileId}');

  const notifyWebhookUrls = (get('NOTIFY_WEBHOOK_URLS') ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  for (const url of notifyWebhookUrls) {
    if (!isHttpUrl(url)) throw new ConfigError('NOTIFY_WEBHOOK_URLS must be comma-separated http(s):// addresses');
  }

  const headerBrand = get('HEADER_BRAND') ?? 'Platform';
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(headerBrand)) {
    throw new ConfigError('HEADER_BRAND must be a single word of letters and digits, such as Platform or Shimo');
  }

  const watermarkTemplate = (get('WATERMARK_TEMPLATE') ?? '{name}|{date}').split('|');

  return Object.freeze({
    port,
    host,
    databaseUrl,
    appId,
    appSecret,
    platformApiUrl,
    publicUrl,
    tokenSecret,
    tokenSecretIsEphemeral: givenTokenSecret === undefined,
    tokenTtlSeconds,
    signatureRequired,
    signatureMaxLifetimeSeconds,
    adminApiKey,
    fileUrlTemplate,
    notifyWebhookUrls: Object.freeze(notifyWebhookUrls),
    notifyWebhookSecret: get('NOTIFY_WEBHOOK_SECRET'),
    headerBrand,
    watermarkTemplate: Object.freeze(watermarkTemplate),
    production,
    logLevel: parseLogLevel(get('LOG_LEVEL')),
    platform: platformConfig(get),
    sync: readSyncConfig(get),
    database: databaseConfig(get),
    limits: serverLimitsConfig(get),
    observability: observabilityConfig(get),
    previousSecrets: previousSecretsConfig(get, { tokenSecret, appSecret }),
    storage: readStorageConfig(get),
    console: consoleConfig(get, (message) => new ConfigError(message)),
    events: loadEventsConfig(get),
    deprecations: deprecationWarnings(get),
    retention: retentionConfig(get),
    notify: notifyConfig(get, fileUrlTemplate),
  });
}

/**
 * `serve` outside production without ADMIN_API_KEY: a random key for this start only, so the management API
 * and the console work right after `npm start` (the banner prints the key, as it prints a token). A
 * production start never gets one: there the API stays off until ADMIN_API_KEY is set.
 */
export function withEphemeralAdminKey(config: Config): { config: Config; ephemeralAdminKey: string | undefined } {
  if (config.production || config.adminApiKey !== undefined) return { config, ephemeralAdminKey: undefined };
  // Never with a leading `-`: the key is passed as `--admin-key "$KEY"`, which would read as an option (one start in 64).
  let key: string;
  do key = randomBytes(24).toString('base64url');
  while (key.startsWith('-'));
  return { config: Object.freeze({ ...config, adminApiKey: key }), ephemeralAdminKey: key };
}

/**
 * A configuration for tests and library use: the defaults, with the given values on top. Overload
 * protection and rate limits are off: a test runner blocks the event loop (compiling, other suites) and
 * sends bursts from one address; tests of those protections turn them on.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    TOKEN_SECRET: 'test-token-secret-0123456789',
    DATABASE_URL: 'sqlite::memory:',
    OVERLOAD_EVENT_LOOP_DELAY: '0',
    RATE_LIMIT_MANAGE: 'off',
    RATE_LIMIT_TOKENS: 'off',
    RATE_LIMIT_AUTH_FAILURES: 'off',
  });
  return Object.freeze({ ...base, ...overrides });
}

/**
 * Reads `.env` in the working directory, if present, into the environment (values already set win);
 * returns the names it supplied.
 * Node's own parser (`util.parseEnv`, the one behind `node --env-file`): quotes, `#` comments, `export`.
 */
export function loadDotEnv(path = '.env', env: Env = process.env): Set<string> {
  const supplied = new Set<string>();
  if (!existsSync(path)) return supplied;
  for (const [key, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
    if (env[key] === undefined) {
      env[key] = value;
      supplied.add(key);
    }
  }
  return supplied;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 3000;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new ConfigError('PORT must be a number from 0 to 65535');
  return Number(value);
}

function parseDatabaseUrl(value: string): string {
  if (value.startsWith('sqlite:') && value.length > 'sqlite:'.length) return value;
  if (/^postgres(ql)?:\/\//.test(value)) return value;
  if (/^(mysql|mariadb):\/\/[^/]+\/[^/?#]+/.test(value)) return value;
  if (/^(mysql|mariadb):\/\//.test(value)) throw new ConfigError('DATABASE_URL must name the database: mysql://user:password@host:port/database');
  throw new ConfigError('DATABASE_URL must be sqlite:PATH, sqlite::memory:, postgres://… or mysql://user:password@host:port/database');
}

function optionalHttpUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isHttpUrl(value)) throw new ConfigError(`${name} must start with http(s)://`);
  return value.replace(/\/+$/, '');
}

function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function requiredInProduction(name: string, production: boolean, demoValue: string): string {
  if (production) throw new ConfigError(`${name} is required when NODE_ENV=production`);
  return demoValue;
}
