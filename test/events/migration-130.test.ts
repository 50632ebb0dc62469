import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { storeBefore } from '../helpers/store-before.js';
import { dialects } from '../helpers/stores.js';

type Row = {
  delivery_key: string;
  kind: string;
  action: string;
  file_id: string;
  user_id: string;
  credential: string;
  outcome: string;
  problem: string | null;
  subject: null;
  received_at: string;
  received_ms: number;
  body: string;
};

const row = (key: string, userId: string, credential: string, outcome: string, problem: string | null): Row => ({
  delivery_key: key,
  kind: 'Comment',
  action: 'create',
  file_id: 'plan',
  user_id: userId,
  credential,
  outcome,
  problem,
  subject: null,
  received_at: '2026-11-01T08:00:00Z',
  received_ms: 1_793_520_000_000,
  body: '{}',
});

/**
 * Migration 130 gives the events logged before it their sender where the log already knew it: a token
 * event's actor was its token's user, unless it was refused for naming someone else (then the sender is
 * unknown, and re-processing keeps it refused).
 */
for (const dialect of dialects) {
  describe(`migration 130-event-sender [${dialect}]`, () => {
    it("records the token's user as the sender of old token events, and no sender where it is not known", async () => {
      const store = await storeBefore(dialect, '130');
      try {
        const old = store.db as unknown as Kysely<{ events: Row }>;
        await old
          .insertInto('events')
          .values([
            row('processed', 'zhang', 'token', 'processed', null),
            row('expired', 'lilei', 'token-expired', 'unprocessed', 'no such action'),
            row('forged', 'lilei', 'token', 'refused', 'actor_mismatch: userId "lilei" is not the user of the token ("wang")'),
            row('denied', 'wang', 'token', 'refused', 'permission_denied: the user of the token may not comment on this file'),
            row('unchecked', 'ben', 'token', 'refused', 'trust_unchecked: the directory failed: down'),
            row('signed', 'olga', 'signature', 'processed', null),
          ])
          .execute();
        await store.migrateAll();
        const senders = await store.db.selectFrom('events').select(['delivery_key', 'sender_id']).orderBy('id').execute();
        expect(senders).toEqual([
          { delivery_key: 'processed', sender_id: 'zhang' },
          { delivery_key: 'expired', sender_id: 'lilei' },
          { delivery_key: 'forged', sender_id: null },
          { delivery_key: 'denied', sender_id: 'wang' },
          { delivery_key: 'unchecked', sender_id: 'ben' },
          { delivery_key: 'signed', sender_id: null },
        ]);
      } finally {
        await store.close();
      }
    });
  });
}
