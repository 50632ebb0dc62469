import type { Kysely } from 'kysely';
import { ID, SHORT, type ColumnTypes } from './column-types.js';

/**
 * Share links and their guests (issue 24, docs/sharing.md). A link stores the SHA-256 of its code (the code
 * itself is shown once, at creation) and an scrypt hash of its password; revoking sets `revoked_at` (the
 * row stays, so a revoked link's guests are told so). A guest is one token request on a link.
 */
export function shareLinksMigration(t: ColumnTypes) {
  const big = t.bigint;
  const { text } = t;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('share_links'))
        .addColumn('id', t.key(ID), (c) => c.primaryKey())
        .addColumn('code_hash', t.key(ID), (c) => c.notNull().unique())
        .addColumn('file_id', t.key(ID), (c) => c.notNull())
        .addColumn('role', text, (c) => c.notNull())
        .addColumn('owner_id', text, (c) => c.notNull())
        .addColumn('anonymous', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('password_hash', text)
        .addColumn('max_uses', big)
        .addColumn('uses', big, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.key(SHORT), (c) => c.notNull())
        .addColumn('expires_at', text)
        .addColumn('revoked_at', text)
        .execute();
      await db.schema.createIndex('share_links_by_file').on('share_links').columns(['file_id', 'created_at']).execute();
      await t
        .table(db.schema.createTable('share_guests'))
        .addColumn('id', t.key(ID), (c) => c.primaryKey())
        .addColumn('link_id', t.key(ID), (c) => c.notNull())
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('created_at', t.key(SHORT), (c) => c.notNull())
        .addColumn('last_used_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('share_guests_by_link').on('share_guests').columns(['link_id', 'created_at']).execute();
    },
  };
}
