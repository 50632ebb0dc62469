import { ConfigError } from './config-error.js';
import { parseSecret, type EnvGetter } from './values.js';

/**
 * The keys being retired during a rotation: still accepted for verification (or, for webhooks, still
 * signed with) while set; new tokens, links and signatures use only the current keys.
 */
export interface PreviousSecretsConfig {
  /** TOKEN_SECRET_PREVIOUS: user tokens and download links made with it still verify. */
  readonly tokenSecret: string | undefined;
  /** APP_SECRET_PREVIOUS: platform signatures made with it still verify. */
  readonly appSecret: string | undefined;
  /** NOTIFY_WEBHOOK_SECRET_PREVIOUS: notifications carry a second signature made with it. */
  readonly notifyWebhookSecret: string | undefined;
}

export function previousSecretsConfig(get: EnvGetter, current: { tokenSecret: string; appSecret: string }): PreviousSecretsConfig {
  const tokenSecret = parseSecret('TOKEN_SECRET_PREVIOUS', get('TOKEN_SECRET_PREVIOUS'));
  const appSecret = parseSecret('APP_SECRET_PREVIOUS', get('APP_SECRET_PREVIOUS'));
  // Tokens and signatures are both HS256 JWTs: a token key that is also a signature key would let a user
  // token pass as a platform signature, whichever of the two is the old one.
  const tokenKeys = [current.tokenSecret, tokenSecret].filter((key) => key !== undefined);
  const appKeys = [current.appSecret, appSecret].filter((key) => key !== undefined);
  if (tokenKeys.some((key) => appKeys.includes(key))) {
    throw new ConfigError('TOKEN_SECRET and TOKEN_SECRET_PREVIOUS must differ from APP_SECRET and APP_SECRET_PREVIOUS');
  }
  return Object.freeze({ tokenSecret, appSecret, notifyWebhookSecret: get('NOTIFY_WEBHOOK_SECRET_PREVIOUS') });
}
