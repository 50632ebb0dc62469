import { sql } from 'kysely';
import type { Guest, LinkRole, ShareLink, ShareLinkStore } from '../../auth/share-links.js';
import type { Db } from '../schema/schema.js';
import type { SharingTables } from '../schema/tables/sharing.js';

type LinkRow = SharingTables['share_links'];

function toLink(row: LinkRow): ShareLink {
  return {
    id: row.id,
    fileId: row.file_id,
    role: row.role as LinkRole,
    ownerId: row.owner_id,
    anonymous: Number(row.anonymous) === 1,
    hasPassword: row.password_hash !== null,
    maxUses: row.max_uses === null ? null : Number(row.max_uses),
    uses: Number(row.uses),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

function toGuest(row: SharingTables['share_guests']): Guest {
  return { id: row.id, linkId: row.link_id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}

/** Share links and guests in the store's `share_links` and `share_guests` tables (migration 140). */
export function sqlShareLinks(db: Db): ShareLinkStore {
  return {
    async insert(link) {
      await db
        .insertInto('share_links')
        .values({
          id: link.id,
          code_hash: link.codeHash,
          file_id: link.fileId,
          role: link.role,
          owner_id: link.ownerId,
          anonymous: link.anonymous ? 1 : 0,
          password_hash: link.passwordHash,
          max_uses: link.maxUses,
          uses: 0,
          created_at: link.createdAt,
          expires_at: link.expiresAt,
          revoked_at: null,
        })
        .execute();
    },
    async listForFile(fileId) {
      const rows = await db.selectFrom('share_links').selectAll().where('file_id', '=', fileId).orderBy('created_at').orderBy('id').execute();
      return rows.map(toLink);
    },
    async get(id) {
      const row = await db.selectFrom('share_links').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toLink(row);
    },
    async findByCode(codeHash) {
      const row = await db.selectFrom('share_links').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row && { link: toLink(row), passwordHash: row.password_hash };
    },
    async revoke(id, at) {
      const found = await db.selectFrom('share_links').select('id').where('id', '=', id).executeTakeFirst();
      if (!found) return false;
      await db.updateTable('share_links').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
      return true;
    },
    async claimUse(id) {
      const result = await db
        .updateTable('share_links')
        .set({ uses: sql`uses + 1` })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async insertGuest(guest) {
      await db.insertInto('share_guests').values({ id: guest.id, link_id: guest.linkId, name: guest.name, created_at: guest.createdAt, last_used_at: guest.lastUsedAt }).execute();
    },
    async guestsOf(linkIds) {
      if (linkIds.length === 0) return [];
      const rows = await db.selectFrom('share_guests').selectAll().where('link_id', 'in', linkIds).orderBy('created_at', 'desc').orderBy('id').execute();
      return rows.map(toGuest);
    },
    async guestWithLink(guestId) {
      const guest = await db.selectFrom('share_guests').selectAll().where('id', '=', guestId).executeTakeFirst();
      if (!guest) return undefined;
      const link = await db.selectFrom('share_links').selectAll().where('id', '=', guest.link_id).executeTakeFirst();
      return link && { guest: toGuest(guest), link: toLink(link) };
    },
    async anonymousAllowed(fileId, nowText) {
      let query = db.selectFrom('share_links').select('id');
      if (fileId !== null) query = query.where('file_id', '=', fileId);
      const row = await query
        .where('anonymous', '=', 1)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowText)]))
        .limit(1)
        .executeTakeFirst();
      if (row !== undefined) return true;
      // Or the file itself says `"anonymous": "view"` (migration 145).
      let files = db.selectFrom('files').select('id').where('anonymous_access', '=', 'view').where('status', '=', 'active');
      if (fileId !== null) files = files.where('id', '=', fileId);
      return (await files.limit(1).executeTakeFirst()) !== undefined;
    },
    async touchGuest(guestId, at) {
      await db.updateTable('share_guests').set({ last_used_at: at }).where('id', '=', guestId).where('last_used_at', '<', at).execute();
    },
  };
}
