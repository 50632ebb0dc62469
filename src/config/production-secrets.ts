import { ConfigError } from './config-error.js';

/**
 * What a production start refuses as a secret (docs/operations.md, "Security"): a value published in this
 * repository (the demo's, the docs', the tests'), anything still saying "change me", and a value whose
 * estimated entropy is below MIN_SECRET_BITS. The estimate is the value's length times the Shannon
 * entropy of its own characters: `aaaaaaaaaaaaaaaa` has 0 bits, 32 random hex digits about 110,
 * `openssl rand -hex 32` about 240.
 */
export const MIN_SECRET_BITS = 80;

/** The secrets production checks, when set. */
export const PRODUCTION_SECRETS = [
  'APP_SECRET',
  'APP_SECRET_PREVIOUS',
  'TOKEN_SECRET',
  'TOKEN_SECRET_PREVIOUS',
  'ADMIN_API_KEY',
  'SCIM_TOKEN',
  'NOTIFY_WEBHOOK_SECRET',
  'NOTIFY_WEBHOOK_SECRET_PREVIOUS',
] as const;

/** Values this repository publishes (demo, docs, tests): anyone can sign with them. */
const PUBLISHED = new Set([
  'demo-app-secret-change-me',
  'demo-token-secret-0123456789',
  'scim-demo-token-0123456789',
  'change-me-to-16+-chars',
  'test-token-secret-0123456789',
  'admin-key-0123456789abcdef',
]);

/** Why `value` may not be a production secret, or undefined when it may. */
export function weakSecretReason(value: string): string | undefined {
  if (PUBLISHED.has(value)) return 'it is a published demo value';
  if (/change-?me/i.test(value)) return 'it still says "change me"';
  const bits = estimatedBits(value);
  if (bits < MIN_SECRET_BITS) return `its estimated entropy is ${Math.floor(bits)} bits, below ${MIN_SECRET_BITS} (make one with: openssl rand -hex 32)`;
  return undefined;
}

/** Length times the Shannon entropy of the value's own characters (bits). */
export function estimatedBits(value: string): number {
  const characters = [...value];
  const counts = new Map<string, number>();
  for (const character of characters) counts.set(character, (counts.get(character) ?? 0) + 1);
  let perCharacter = 0;
  for (const count of counts.values()) {
    const p = count / characters.length;
    perCharacter -= p * Math.log2(p);
  }
  return perCharacter * characters.length;
}

/** In production, throws naming the first weak secret and why (one line). */
export function refuseWeakSecrets(get: (name: string) => string | undefined, production: boolean): void {
  if (!production) return;
  for (const name of PRODUCTION_SECRETS) {
    const value = get(name);
    if (value === undefined) continue;
    const reason = weakSecretReason(value);
    if (reason !== undefined) throw new ConfigError(`${name} is refused when NODE_ENV=production: ${reason}`);
  }
}

/** Production warnings that do not stop the start (printed with the banner). */
export function productionWarnings(config: { production: boolean; publicUrl: string }): string[] {
  if (!config.production || !/^http:\/\//i.test(config.publicUrl)) return [];
  return [`warning: PUBLIC_URL is ${config.publicUrl} (http://): the console's session cookie cannot be Secure; serve over https and set PUBLIC_URL=https://…`];
}
