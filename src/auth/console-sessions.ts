import { createHmac, randomBytes } from 'node:crypto';
import { formatTime } from '../directory/time.js';
import { sameSecret } from './secret-compare.js';

/** What the console's sessions need from storage (src/store/console/console-sessions.ts implements it). */
export interface ConsoleSessionStore {
  /** Stores a new session under its id. */
  insert(session: { id: string; createdAt: string; expiresMs: number }): Promise<void>;
  /** The session's expiry (ms since the epoch) when it exists and is still valid at `nowMs`. */
  findLive(id: string, nowMs: number): Promise<{ expiresMs: number } | undefined>;
  /** Deletes the session; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Deletes every session expired at `nowMs`; returns how many. */
  removeExpired(nowMs: number): Promise<number>;
}

/** A signed-in console session as the page sees it. */
export interface ConsoleSession {
  /** Sent back by the page in `X-CSRF-Token` on every write. */
  csrfToken: string;
  /** `YYYY-MM-DDThh:mm:ssZ` */
  expiresAt: string;
}

/** A new session: `token` goes into the HttpOnly cookie and nowhere else. */
export interface NewConsoleSession extends ConsoleSession {
  token: string;
  maxAgeSeconds: number;
}

/** The header the console sends its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sessions of the operator console, exchanged for the admin key. The cookie holds a random 256-bit token;
 * the store holds only HMAC(ADMIN_API_KEY, token), so a database reader learns no usable token, and a new
 * ADMIN_API_KEY ends every session at once. The CSRF token is HMAC(token, "csrf"): derived, never stored,
 * compared in constant time. Sign-out deletes the session, so a copied cookie dies with it.
 */
export class ConsoleSessions {
  /** The cookie's name: `__Host-` prefixed when it is Secure, so no subdomain or path can set it. */
  readonly cookieName: string;
  private readonly now: () => number;

  /** `secureCookie`: the console is reached over https (PUBLIC_URL), so the cookie is sent only there. */
  constructor(
    private readonly adminApiKey: string,
    private readonly store: ConsoleSessionStore,
    readonly options: { ttlSeconds: number; secureCookie: boolean; now?: () => number },
  ) {
    this.now = options.now ?? Date.now;
    this.cookieName = options.secureCookie ? '__Host-collab_console' : 'collab_console';
  }

  /** A new session when `key` is the admin key (compared in constant time); undefined otherwise. */
  async signIn(key: string): Promise<NewConsoleSession | undefined> {
    if (!sameSecret(key, this.adminApiKey)) return undefined;
    const nowMs = this.now();
    const token = randomBytes(32).toString('base64url');
    const expiresMs = nowMs + this.options.ttlSeconds * 1000;
    await this.store.removeExpired(nowMs);
    await this.store.insert({ id: this.idOf(token), createdAt: formatTime(nowMs), expiresMs });
    return { token, csrfToken: csrfTokenOf(token), expiresAt: formatTime(expiresMs), maxAgeSeconds: this.options.ttlSeconds };
  }

  /** The live session the cookie's token names, or undefined (unknown, expired, signed out, or made under another admin key). */
  async verify(token: string): Promise<ConsoleSession | undefined> {
    if (!TOKEN_FORM.test(token)) return undefined;
    const found = await this.store.findLive(this.idOf(token), this.now());
    return found && { csrfToken: csrfTokenOf(token), expiresAt: formatTime(found.expiresMs) };
  }

  /** Whether the CSRF header sent with a write belongs to the session's token. */
  csrfMatches(token: string, header: string | undefined): boolean {
    return header !== undefined && sameSecret(header, csrfTokenOf(token));
  }

  /** Ends the session (nothing happens for an unknown token). */
  async signOut(token: string): Promise<void> {
    if (TOKEN_FORM.test(token)) await this.store.remove(this.idOf(token));
  }

  private idOf(token: string): string {
    return createHmac('sha256', this.adminApiKey).update(token).digest('hex');
  }
}

function csrfTokenOf(token: string): string {
  return createHmac('sha256', token).update('csrf').digest('base64url');
}
