import type { Config } from '../config/config.js';

/**
 * The keys that verify user tokens and download links: TOKEN_SECRET first (the only one that signs), then
 * TOKEN_SECRET_PREVIOUS while a rotation is under way.
 */
export function tokenSecrets(config: Pick<Config, 'tokenSecret' | 'previousSecrets'>): readonly string[] {
  return withPrevious(config.tokenSecret, config.previousSecrets.tokenSecret);
}

/**
 * The keys outgoing notifications are signed with: NOTIFY_WEBHOOK_SECRET, then
 * NOTIFY_WEBHOOK_SECRET_PREVIOUS while set; empty when notifications go unsigned.
 */
export function webhookSecrets(config: Pick<Config, 'notifyWebhookSecret' | 'previousSecrets'>): readonly string[] {
  return config.notifyWebhookSecret === undefined ? [] : withPrevious(config.notifyWebhookSecret, config.previousSecrets.notifyWebhookSecret);
}

function withPrevious(current: string, previous: string | undefined): readonly string[] {
  return previous === undefined || previous === current ? [current] : [current, previous];
}
