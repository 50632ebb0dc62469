/**
 * How fast the event processor works through a backlog, with one lane and with the store's lanes, in the
 * same minute (issue 22; a small script of its own, not part of `npm run bench`). It appends `--events`
 * pending events of the bench's mix (each by a user who may act on its file) straight to the log of a
 * store imported before, times `drain()` of a processor (the directory read from memory, as the server
 * does), and does it again with the other lane count.
 *
 *   npx tsx bench/effects-drain.ts --db 'postgres://…?options=-c%20search_path%3Dbench_kept,public' [--events 3000] [--rounds 2]
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DirectoryService } from '../src/directory/directory-service.js';
import { ModelDirectory } from '../src/directory/read-model/model-directory.js';
import { EventProcessor } from '../src/events/event-processor.js';
import { openDatabase } from '../src/store/connection/database.js';
import { eventLog, type NewEvent } from '../src/store/events/event-log.js';
import { StoreModelSource } from '../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../src/store/directory-reads/sql-directory.js';
import { EVENT_KINDS, eventBody } from './scenarios.js';

const { values: args } = parseArgs({ options: { db: { type: 'string' }, events: { type: 'string' }, rounds: { type: 'string' } } });
if (!args.db) throw new Error('--db URL is required');
const EVENTS = Number(args.events ?? 3000);
const ROUNDS = Number(args.rounds ?? 2);

const store = await openDatabase(args.db);
const actors = await store.db
  .selectFrom('files')
  .select(['id as fileId', 'creator_id as userId'])
  .where('status', '=', 'active')
  .where('creator_id', 'is not', null)
  .limit(2000)
  .execute();
const users = actors.map((actor) => actor.userId as string);
const run = Date.now();

function backlog(round: string): NewEvent[] {
  return Array.from({ length: EVENTS }, (_, index) => {
    const kind = EVENT_KINDS[index % EVENT_KINDS.length]!;
    const actor = actors[Math.floor(Math.random() * actors.length)]!;
    const body = JSON.stringify(eventBody(kind, actor.fileId, actor.userId as string, users[index % users.length]!, index, run));
    const receivedMs = Date.now();
    return {
      deliveryKey: createHash('sha256').update(`${run}-${round}-${index}`).digest('hex'),
      kind,
      action: null,
      fileId: actor.fileId,
      userId: actor.userId as string,
      credential: 'token',
      senderId: actor.userId as string,
      outcome: 'pending',
      problem: null,
      subject: null,
      receivedMs,
      body,
    };
  });
}

// The directory in memory, as the server reads it (the fan-out's file and user lookups).
const model = new StoreModelSource(store);
await model.loaded;
const directory = new DirectoryService(new ModelDirectory(model, SqlDirectory.over(store)), { watermarkTemplate: [] });
const storeLanes = eventLog.lanes(store.db);
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const lanes of [...new Set([1, storeLanes])]) {
      const events = backlog(`${round}-${lanes}`);
      for (let start = 0; start < events.length; start += 500) await eventLog.append(store.db, events.slice(start, start + 500));
      const processor = new EventProcessor(store.db, directory, { receivers: [], maxFanout: 100, lanes });
      const started = process.hrtime.bigint();
      await processor.drain();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      process.stdout.write(`round ${round + 1}, ${lanes} lane(s): ${EVENTS} events drained in ${seconds.toFixed(2)} s, ${(EVENTS / seconds).toFixed(0)} events/s\n`);
    }
  }
} finally {
  model.close();
  await store.close();
}
