import { parseDuration } from '../shared/duration.js';
import { ConfigError } from './config-error.js';

/** The platform API client's settings (docs/platform.md); PLATFORM_API_URL itself stays in the main section. */
export interface PlatformConfig {
  /**
   * PLATFORM_CALLBACK_VERSION: the `version` claim of every API signature, as the platform's kit sends
   * it; with `v2` the calls also carry `X-Weboffice-User-Uuid` (the SHA-256 of the user id). Absent = no claim.
   */
  readonly callbackVersion: string | undefined;
  /** PLATFORM_TIMEOUT: whole-call limit of one platform API call, in milliseconds (default 10 s). */
  readonly timeoutMs: number;
  /** PLATFORM_LANG: the `lang` of created documents: zh-CN (default), en or jp. */
  readonly lang: 'zh-CN' | 'en' | 'jp';
  /** PLATFORM_SEAT_SYNC: whether directory changes queue seat (de)activations (default true; only with PLATFORM_API_URL). */
  readonly seatSync: boolean;
}

export function platformConfig(get: (name: string) => string | undefined): PlatformConfig {
  const callbackVersion = get('PLATFORM_CALLBACK_VERSION');
  if (callbackVersion !== undefined && !/^v\d+$/.test(callbackVersion)) throw new ConfigError('PLATFORM_CALLBACK_VERSION must be v1 or v2');

  const timeoutText = get('PLATFORM_TIMEOUT') ?? '10s';
  const timeoutSeconds = parseDuration(timeoutText);
  if (timeoutSeconds === undefined || timeoutSeconds <= 0 || timeoutSeconds > 600) {
    throw new ConfigError('PLATFORM_TIMEOUT must be a duration from 1s to 10m, such as 10s');
  }

  const lang = get('PLATFORM_LANG') ?? 'zh-CN';
  if (lang !== 'zh-CN' && lang !== 'en' && lang !== 'jp') throw new ConfigError('PLATFORM_LANG must be zh-CN, en or jp');

  const seatSyncText = get('PLATFORM_SEAT_SYNC') ?? 'true';
  if (!/^(true|false|1|0|yes|no|on|off)$/i.test(seatSyncText)) throw new ConfigError('PLATFORM_SEAT_SYNC must be true or false');

  return Object.freeze({ callbackVersion, timeoutMs: timeoutSeconds * 1000, lang, seatSync: /^(true|1|yes|on)$/i.test(seatSyncText) });
}
