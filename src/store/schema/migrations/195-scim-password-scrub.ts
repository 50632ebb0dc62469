import type { Kysely } from 'kysely';

/** Resources rewritten per statement batch. */
const PAGE = 500;

interface ResourceRow {
  id: string;
  attributes: string;
}

/**
 * SCIM users were stored with the `password` an identity provider sends on create and replace (Okta
 * does): write-only in SCIM (RFC 7643 §4.1), never answered and never used by collab-host, yet kept in
 * plain text in `scim_resources.attributes`, so in backups too. Since then it is not stored
 * (src/sync/scim/scim-users.ts); this removes it from the users stored before. Their `meta.version`
 * changes with it: a client's next `If-Match` with the old one is answered 412 and it reads the user again.
 */
export function scimPasswordScrubMigration() {
  return {
    async up(untyped: Kysely<unknown>): Promise<void> {
      const db = untyped as Kysely<{ scim_resources: { kind: string; id: string; attributes: string } }>;
      let after = '';
      for (;;) {
        const rows: ResourceRow[] = await db
          .selectFrom('scim_resources')
          .select(['id', 'attributes'])
          .where('kind', '=', 'User')
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
        if (rows.length === 0) return;
        for (const row of rows) {
          const attributes = JSON.parse(row.attributes) as Record<string, unknown>;
          const kept = Object.keys(attributes).filter((key) => key.toLowerCase() !== 'password');
          if (kept.length === Object.keys(attributes).length) continue;
          const scrubbed = Object.fromEntries(kept.map((key) => [key, attributes[key]]));
          await db
            .updateTable('scim_resources')
            .set({ attributes: JSON.stringify(scrubbed) })
            .where('kind', '=', 'User')
            .where('id', '=', row.id)
            .execute();
        }
        after = rows.at(-1)!.id;
      }
    },
  };
}
