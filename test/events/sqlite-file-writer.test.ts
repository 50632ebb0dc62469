import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/connection/database.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { buildEventApp, collaborator, commentCreate, dateMention, fileContent, postEvent, signedHeaders, tokenHeaders } from './event-fixtures.js';

// On an SQLite file (the production default) the service reads through a second connection (the hot
// reads); these checks read what the intake logged and the processor derived, and again after a restart.
describe('events on an SQLite file', () => {
  let dir: string;
  let url: string;
  const T = Date.parse('2024-03-01T08:00:00Z');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'collab-events-file-'));
    url = `sqlite:${join(dir, 'store.db')}`;
    const store = await openDatabase(url);
    await seedDirectory(store.db);
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers each of many concurrent events after its commit, and everything is there after a restart', async () => {
    let store = await openDatabase(url);
    let { app, settle } = await buildEventApp(store);
    const versions = Array.from({ length: 30 }, (_, index) => fileContent('teamdoc', 'carol', 10 + index, T + index));
    const copy = commentCreate('plan', 'zhang', { guid: 'c-file', content: '看看 @lilei', userIds: ['lilei'] });
    const responses = await Promise.all([
      ...versions.map((body) => postEvent(app, 'FileContent', body, signedHeaders('teamdoc'))),
      ...Array.from({ length: 3 }, () => postEvent(app, 'Comment', JSON.stringify(copy), tokenHeaders('zhang'))),
      postEvent(app, 'Collaborator', collaborator('plan', 'lilei', 'enter', 'tab-1', T), signedHeaders('plan')),
      postEvent(
        app,
        'DateMention',
        dateMention('plan', 'zhang', 'create', { id: 'r-file', content: '交付', remindUserIds: ['lilei'], remindAt: '2030-01-01T00:00:00Z' }),
        tokenHeaders('zhang'),
      ),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual(Array(35).fill(200));

    // Answered means logged: every event is in the log at once; its effects follow from it.
    expect(await store.db.selectFrom('events').select('id').execute()).toHaveLength(33);
    await settle();
    const file = await store.db.selectFrom('files').select(['version']).where('id', '=', 'teamdoc').executeTakeFirstOrThrow();
    expect(file.version).toBe(39);
    await app.close();
    await store.close();

    store = await openDatabase(url);
    ({ app, settle } = await buildEventApp(store));
    try {
      const events = await store.db.selectFrom('events').select(['kind']).execute();
      expect(events).toHaveLength(33); // the three identical comments are one event
      const mentions = await store.db.selectFrom('notifications').select('data').where('type', '=', 'mention.created').execute();
      expect(mentions.map((row) => JSON.parse(row.data).userId)).toEqual(['lilei']);
      const presence = await store.db.selectFrom('presence').select(['user_id', 'present']).where('file_id', '=', 'plan').execute();
      expect(presence).toEqual([{ user_id: 'lilei', present: 1 }]);
      const reminder = await store.db.selectFrom('reminders').select(['status', 'remind_at']).where('id', '=', 'r-file').executeTakeFirstOrThrow();
      expect(reminder).toEqual({ status: 'scheduled', remind_at: '2030-01-01T00:00:00Z' });
      // A copy delivered after the restart is still recognised.
      expect((await postEvent(app, 'Comment', JSON.stringify(copy), tokenHeaders('zhang'))).statusCode).toBe(200);
      await settle();
      expect(await store.db.selectFrom('events').select('id').execute()).toHaveLength(33);
      expect(await store.db.selectFrom('notifications').select('id').where('type', '=', 'mention.created').execute()).toHaveLength(1);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
