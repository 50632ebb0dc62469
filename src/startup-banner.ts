import type { Config } from './config.js';
import { productionWarnings } from './config/production-secrets.js';
import { displayHeaderName } from './http/headers.js';

export interface BannerFacts {
  /** Where the server listens, e.g. `http://127.0.0.1:3000`. */
  address: string;
  /** A user to try the service as, with a fresh token; absent when the directory has no user, and in production. */
  user?: { id: string; token: string };
  /** Whether the directory has users (a production start shows none of them); absent: as `user` says. */
  hasUsers?: boolean;
  /** Counts of the demo import when this start loaded the demo data. */
  seeded?: { users: number; files: number } | null;
  /** The management API's key made for this start (ADMIN_API_KEY not set, outside production). */
  ephemeralAdminKey?: string;
}

/**
 * The lines printed when `collab-host serve` starts: the address, a user's token and a curl line that
 * works as printed (a wildcard listen address becomes 127.0.0.1, the header follows HEADER_BRAND).
 */
export function startupBanner(config: Config, facts: BannerFacts): string {
  const reachable = facts.address.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1');
  const lines = [`collab-host listening on ${facts.address}`];
  if (facts.seeded) lines.push(`loaded the demo directory (${facts.seeded.users} users, ${facts.seeded.files} files) into an empty store`);
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
    lines.push(
      'management API and console key (this start only: ADMIN_API_KEY is not set):',
      `  ${facts.ephemeralAdminKey}`,
      `console: ${reachable}/console`,
    );
  } else if (config.adminApiKey !== undefined) {
    lines.push(`console: ${reachable}/console (sign in with ADMIN_API_KEY)`);
  }
  lines.push(...productionWarnings(config));
  return `${lines.join('\n')}\n`;
}

function describeSeconds(seconds: number): string {
  if (seconds % 3600 === 0 && seconds <= 72 * 3600) return `${seconds / 3600}h`;
  if (seconds % 86400 === 0) return `${seconds / 86400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}
