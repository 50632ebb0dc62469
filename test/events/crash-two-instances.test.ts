import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { mintUserToken } from '../../src/auth/user-token.js';
import { CLI_TOKEN_SECRET, cliEnv, startCli } from '../cli/run-cli.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';

/** Events of the burst, and how many are sent at once. */
const EVENTS = 240;
const IN_FLIGHT = 16;
/** The first instance is killed once this many events were acknowledged. */
const KILL_AFTER = 60;

/** A comment by zhangsan on his plan (the demo directory): one comment.created notification each. */
const commentBody = (index: number) =>
  JSON.stringify({
    kind: 'comment',
    type: 'comment',
    action: 'create',
    fileId: 'plan-2024q3',
    userId: 'zhangsan',
    comment: { guid: `burst-${index}`, content: `comment ${index}` },
  });

/**
 * Done when of issue 22: a service killed (SIGKILL) during a burst of events on PostgreSQL or MySQL, with two
 * instances taking and processing events; after a restart, every acknowledged event is in the log once
 * and its effects are there exactly once, applied in log order (all of them are on one file). (SQLite has
 * one writing process, docs/scaling.md: no two instances there.)
 */
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`a burst of events through two instances, one killed mid-burst [${dialect}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-crash-'));
    const running: Array<{ stop: () => Promise<void> }> = [];
    let dropSchema = async () => {};
    afterAll(async () => {
      for (const server of running) await server.stop();
      await dropSchema();
      rmSync(dir, { recursive: true, force: true });
    });

    it('loses no acknowledged event and applies each one exactly once after the restart', { timeout: 600_000 }, async () => {
      const store = await freshStore(dialect);
      dropSchema = store.drop;
      const env = cliEnv(store.url, { PORT: '0', LOG_LEVEL: 'silent' });
      const start = async () => {
        const server = await startCli(['serve'], { cwd: dir, env, ready: /curl -H .*\n/, timeoutMs: 240_000 });
        running.push(server);
        return { server, address: /listening on (\S+)/.exec(server.stdout())![1]! };
      };
      // The first start seeds the demo directory; the second joins it.
      const first = await start();
      const second = await start();

      const token = mintUserToken('zhangsan', CLI_TOKEN_SECRET, 3600);
      const post = (address: string, index: number) =>
        fetch(`${address}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-platform-sdk-event': 'Comment', 'x-platform-token': token },
          body: commentBody(index),
        }).then(
          (response) => response.status,
          () => 0, // the connection died with the instance: not acknowledged
        );
      const acknowledged: number[] = [];
      let next = 0;
      let killed = false;
      const sender = async () => {
        while (next < EVENTS) {
          const index = next++;
          // Half to each instance; once the first is gone, all to the second (as a load balancer would).
          const address = index % 2 === 0 && !killed ? first.address : second.address;
          if ((await post(address, index)) === 200) acknowledged.push(index);
          if (!killed && acknowledged.length >= KILL_AFTER) {
            killed = true;
            first.server.child.kill('SIGKILL');
            running.splice(running.indexOf(first.server), 1);
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
      expect(killed).toBe(true);
      expect(acknowledged.length).toBeGreaterThan(KILL_AFTER);

      // The killed instance comes back; both work through what is left.
      await start();
      const reader = await store.open();
      const client = { query: async <Row>(text: string) => ({ rows: (await sql.raw<Row>(text).execute(reader.db)).rows }) };
      try {
        const deadline = Date.now() + 240_000;
        for (;;) {
          const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE outcome = 'pending'`);
          if (Number(rows[0]!.n) === 0) break;
          if (Date.now() > deadline) throw new Error(`${rows[0]!.n} events still pending`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const { rows: events } = await client.query<{ id: string; body: string; outcome: string }>(`SELECT id, body, outcome FROM events WHERE kind = 'Comment'`);
        const byGuid = new Map<string, Array<{ id: string; outcome: string }>>();
        for (const event of events) {
          const guid = (JSON.parse(event.body) as { comment: { guid: string } }).comment.guid;
          byGuid.set(guid, [...(byGuid.get(guid) ?? []), { id: String(event.id), outcome: event.outcome }]);
        }
        const { rows: notified } = await client.query<{ event_id: string; n: string }>(
          `SELECT event_id, count(*) AS n FROM notifications WHERE type = 'comment.created' GROUP BY event_id`,
        );
        const notifications = new Map(notified.map((row) => [String(row.event_id), Number(row.n)]));
        // Every acknowledged event: logged once, processed, one notification.
        for (const index of acknowledged) {
          const logged = byGuid.get(`burst-${index}`) ?? [];
          expect(logged, `burst-${index}`).toHaveLength(1);
          expect(logged[0]!.outcome).toBe('processed');
          expect(notifications.get(logged[0]!.id), `notifications of burst-${index}`).toBe(1);
        }
        // Whatever else reached the log (answered or cut off by the kill) is there once, with one notification.
        for (const [guid, logged] of byGuid) {
          expect(logged, guid).toHaveLength(1);
          expect(notifications.get(logged[0]!.id) ?? 0, guid).toBe(logged[0]!.outcome === 'processed' ? 1 : 0);
        }
        expect([...notifications.values()].every((count) => count === 1)).toBe(true);
        // Every event is on one file: its effects were applied in log order, whichever instance applied them.
        const { rows: applied } = await client.query<{ event_id: string }>(`SELECT event_id FROM notifications WHERE type = 'comment.created' ORDER BY seq`);
        const appliedIds = applied.map((row) => Number(row.event_id));
        expect(appliedIds).toEqual([...appliedIds].sort((a, b) => a - b));
      } finally {
        await reader.close();
      }
    });
  });
