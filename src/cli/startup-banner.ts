import type { Config } from '../config/config.js';
import { productionWarnings } from '../config/production-secrets.js';
import { displayHeaderName } from '../http/headers.js';
import { redactText } from '../shared/redaction.js';
import { redactDatabaseUrl } from '../store/connection/availability.js';

export interface BannerFacts {
  /** Where the server listens, e.g. `http://127.0.0.1:3000`. */
  address: string;
  /** A user to try the service as, with a fresh token; absent when the directory has no user, and in production. */
  user?: { id: string; token: string };
  /** Whether the directory has users (a production start shows none of them); absent: as `user` says. */
  hasUsers?: boolean;
  /** Counts of the demo import when this start loaded the demo data. */
  seeded?: { users: number; files: number } | null;
  /** The directory loaded into memory at start: how long it took and what it holds. */
  directoryLoad?: { ms: number; users: number; files: number };
  /** The management API's key made for this start (ADMIN_API_KEY not set, outside production). */
  ephemeralAdminKey?: string;
  /** Node options of SERVING_NODE_FLAGS (src/cli/serving-flags.ts) this process was started without. */
  missingNodeFlags?: readonly string[];
}

/**
 * The lines printed when `collab-host serve` starts: the address, a user's token and a curl line that
 * works as printed (a wildcard listen address becomes 127.0.0.1, the header follows HEADER_BRAND).
 */
export function startupBanner(config: Config, facts: BannerFacts): string {
  const reachable = facts.address.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1');
  const lines = [`collab-host listening on ${facts.address}`, ...setupLines(config, reachable)];
  if (facts.seeded) lines.push(`loaded the demo directory (${facts.seeded.users} users, ${facts.seeded.files} files) into an empty store`);
  if (facts.directoryLoad) {
    const { ms, users, files } = facts.directoryLoad;
    lines.push(`directory in memory: ${users} users, ${files} files, loaded in ${ms} ms`);
  }
  if (facts.user) {
    const header = displayHeaderName(config.headerBrand, 'Token');
    lines.push(
      `token of user ${facts.user.id} (valid ${describeSeconds(config.tokenTtlSeconds)}${config.tokenSecretIsEphemeral ? ', until this process stops: TOKEN_SECRET is not set' : ''}):`,
      `  ${facts.user.token}`,
      'try:',
      `  curl -H '${header}: ${facts.user.token}' ${reachable}/users/current/info`,
    );
  } else if (!(facts.hasUsers ?? false)) {
    lines.push('the directory has no users yet: load one with `collab-host import FILE`');
  }
  if (facts.ephemeralAdminKey !== undefined) {
    lines.push('management API and console key (this start only: ADMIN_API_KEY is not set):', `  ${facts.ephemeralAdminKey}`, `console: ${reachable}/console`);
  } else if (config.adminApiKey !== undefined) {
    lines.push(`console: ${reachable}/console (sign in with ADMIN_API_KEY)`);
  }
  // The docs' examples use $BASE, $TOKEN and $KEY: one line to paste makes every one of them work as written.
  if (facts.user || facts.ephemeralAdminKey !== undefined) {
    const exports = [
      `BASE=${reachable}`,
      ...(facts.user ? [`TOKEN=${facts.user.token}`] : []),
      ...(facts.ephemeralAdminKey !== undefined ? [`KEY=${facts.ephemeralAdminKey}`] : []),
    ];
    lines.push('for the examples in README.md and docs/, paste:', `  export ${exports.join(' ')}`);
  }
  if (facts.missingNodeFlags !== undefined && facts.missingNodeFlags.length > 0) {
    lines.push(
      `node was started without ${facts.missingNodeFlags.join(' ')}: pauses of hundreds of ms may follow a drop in load on a large directory; start with \`npm start\` or \`node ${facts.missingNodeFlags.join(' ')} bin/collab-host.js serve\` (docs/scaling.md)`,
    );
  }
  lines.push(...config.deprecations, ...productionWarnings(config));
  return `${lines.join('\n')}\n`;
}

/** What this start runs on: the database (password redacted), file storage, directory sources, notification channels, the platform. */
function setupLines(config: Config, reachable: string): string[] {
  const { scim, ldap } = config.sync;
  const sources = [
    ...(scim ? [`SCIM at ${reachable}/scim/v2 for team ${scim.teamId} (bearer SCIM_TOKEN)`] : []),
    ...(ldap
      ? [
          `LDAP ${redactText(ldap.url)} for team ${ldap.teamId} (${ldap.intervalSeconds === undefined ? 'collab-host sync ldap only' : `every ${describeSeconds(ldap.intervalSeconds)}`})`,
        ]
      : []),
  ];
  const channels = [
    ...(config.notifyWebhookUrls.length > 0 ? [`${config.notifyWebhookUrls.length} webhook${config.notifyWebhookUrls.length === 1 ? '' : 's'}`] : []),
    ...config.notify.envChannels.map((channel) => (channel.kind === 'email' ? `e-mail from ${channel.from ?? '?'}` : channel.kind)),
  ];
  return [
    `  database: ${redactDatabaseUrl(config.databaseUrl)}`,
    `  file storage: ${describeStorage(config)}`,
    `  directory sources: ${sources.length > 0 ? sources.join('; ') : 'none besides imports and the management API (SCIM_TOKEN, LDAP_URL)'}`,
    `  notification channels: ${channels.length > 0 ? channels.join(', ') : 'none (NOTIFY_WEBHOOK_URLS, SMTP_URL, NOTIFY_*_WEBHOOK)'}`,
    `  platform API: ${config.platformApiUrl === undefined ? 'not configured (PLATFORM_API_URL)' : redactText(config.platformApiUrl)}`,
  ];
}

function describeStorage(config: Config): string {
  const location = config.storage.location;
  if (location.kind === 'database') return 'in the database';
  if (location.kind === 'fs') return `files under ${location.dir}`;
  return `s3://${location.bucket}/${location.prefix}${config.storage.s3.endpoint ? ` at ${config.storage.s3.endpoint}` : ''}`;
}

function describeSeconds(seconds: number): string {
  if (seconds % 3600 === 0 && seconds <= 72 * 3600) return `${seconds / 3600}h`;
  if (seconds % 86400 === 0) return `${seconds / 86400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}
