import { EDITOR_SCOPE, mintSignature, type AppCredentials } from '../auth/platform-signature.js';

/** How long the signature handed to a browser for `connect()` lives. */
export const EDITOR_SIGNATURE_TTL_SECONDS = 60 * 60;

/** What the front-end SDK's `connect()` needs (callback-interface.md 4.8), minus the container element. */
export interface EditorConfig {
  /** `{PLATFORM_API_URL}/sdk/v2` */
  endpoint: string;
  fileId: string;
  /** A signature bound to the file and user, scope `editor`: refused by collab-host's own signed callbacks. */
  signature: string;
  /** The user's token; the platform sends it back in `X-{brand}-Token`. */
  token: string;
  debug: boolean;
}

export function editorConfig(options: { apiUrl: string; credentials: AppCredentials; fileId: string; userId: string; token: string; now?: number }): EditorConfig {
  const signature = mintSignature(options.credentials, {
    ttlSeconds: EDITOR_SIGNATURE_TTL_SECONDS,
    scope: EDITOR_SCOPE,
    fileId: options.fileId,
    userId: options.userId,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return { endpoint: `${options.apiUrl}/sdk/v2`, fileId: options.fileId, signature, token: options.token, debug: false };
}
