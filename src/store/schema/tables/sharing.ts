/** Share links and their guests (migration 140). Times in the interface's format; `anonymous` is 0/1. */
export interface SharingTables {
  share_links: {
    id: string;
    /** SHA-256 (hex) of the link's code. */
    code_hash: string;
    file_id: string;
    role: string;
    /** The directory user the link is shared in the name of (the watermark names them). */
    owner_id: string;
    anonymous: number;
    /** `scrypt$N$r$p$salt$hash` (base64url), null without a password. */
    password_hash: string | null;
    max_uses: number | string | null;
    uses: number | string;
    created_at: string;
    expires_at: string | null;
    revoked_at: string | null;
  };
  share_guests: { id: string; link_id: string; name: string; created_at: string; last_used_at: string };
}
