/** The operator console's tables (migration 080). */
export interface ConsoleTables {
  /** Signed-in console sessions: id = HMAC(ADMIN_API_KEY, cookie token), never the token itself. */
  console_sessions: { id: string; created_at: string; expires_ms: number };
}
