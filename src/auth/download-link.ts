import { createHmac, timingSafeEqual } from 'node:crypto';
import { epochSeconds } from './jwt.js';

/**
 * Signed, expiring download links for the third-party files whose bytes collab-host stores:
 * `{PUBLIC_URL}/content/{fileId}?expires={epoch seconds}&sig={base64url HMAC-SHA256}`. The platform
 * fetches them without a user token, so the link itself is the credential. The key is derived from
 * TOKEN_SECRET for this one purpose, so a link signature can never pass as a user token or the reverse.
 * During a key rotation links made with TOKEN_SECRET_PREVIOUS still verify (see `tokenSecrets`).
 */

/** How long a link works: long enough for the platform's download right after `GET /files/{fileId}`. */
export const DOWNLOAD_LINK_TTL_SECONDS = 15 * 60;

/** The route that serves stored bytes (src/callbacks/file-content.ts). */
export const CONTENT_PATH_PREFIX = '/content/';

export type DownloadLinkCheck = 'valid' | 'expired' | 'invalid';

export class DownloadLinks {
  /** The signing key first, then the keys that only verify. */
  private readonly keys: readonly Buffer[];

  /** `tokenSecrets`: TOKEN_SECRET, or TOKEN_SECRET then TOKEN_SECRET_PREVIOUS during a key rotation. */
  constructor(
    tokenSecrets: string | readonly string[],
    private readonly publicUrl: string,
    private readonly ttlSeconds: number = DOWNLOAD_LINK_TTL_SECONDS,
  ) {
    this.keys = (typeof tokenSecrets === 'string' ? [tokenSecrets] : tokenSecrets).map((secret) => createHmac('sha256', secret).update('collab-host download link v1').digest());
  }

  /** A link to the file's stored bytes, valid for the configured lifetime from `now`. */
  linkFor(fileId: string, now: number = Date.now()): string {
    const expires = epochSeconds(now) + this.ttlSeconds;
    const sig = this.sign(this.keys[0]!, fileId, expires).toString('base64url');
    return `${this.publicUrl}${CONTENT_PATH_PREFIX}${encodeURIComponent(fileId)}?expires=${expires}&sig=${sig}`;
  }

  /** Checks a link's signature (in constant time) and then its expiry. */
  check(fileId: string, expires: number, sig: string, now: number = Date.now()): DownloadLinkCheck {
    // Compared as text: decoding would let the spare bits of the last base64url character vary.
    const given = Buffer.from(sig);
    const matches = this.keys.some((key) => {
      const expected = Buffer.from(this.sign(key, fileId, expires).toString('base64url'));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!matches) return 'invalid';
    return expires > epochSeconds(now) ? 'valid' : 'expired';
  }

  private sign(key: Buffer, fileId: string, expires: number): Buffer {
    return createHmac('sha256', key).update(`${fileId}\n${expires}`).digest();
  }
}
