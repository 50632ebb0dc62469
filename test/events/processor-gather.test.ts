import { afterEach, expect, it, vi } from 'vitest';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { ADMIN_KEY, buildEventApp, collaborator, tokenHeaders, turns } from './event-fixtures.js';

const T = 1_709_280_000_000;

describeEachStore('event processor: events posted close together', (store) => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('get their effects in one step, once the gather window after the first has passed', async () => {
    await seedDirectory(store().db);
    // Every step reads the clock once: events finished in one step share their effects time.
    let clock = T;
    const { app, pipeline } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY }, { now: () => (clock += 1_000) });
    const effectsTimes = async () => {
      const rows = await store().db.selectFrom('events').select(['id', 'outcome', 'effects_ms']).orderBy('id').execute();
      return rows.map((row) => ({ outcome: row.outcome, effectsMs: row.effects_ms === null ? null : Number(row.effects_ms) }));
    };
    const untilNonePending = async () => {
      while ((await effectsTimes()).some((row) => row.outcome === 'pending')) await turns(1);
    };
    // Through the pipeline whose processor runs (the app's own has none), as POST /events hands it over.
    const enter = async (clientId: string) => {
      const body = collaborator('plan', 'zhang', 'enter', clientId, T);
      const token = tokenHeaders('zhang')['x-platform-token'];
      return pipeline.receive({ headerKind: 'Collaborator', rawBody: JSON.stringify(body), body, token, signature: undefined });
    };

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // A first event, processed by the processor's first step (at its start), before the others arrive.
      expect((await enter('first')).status).toBe(200);
      pipeline.processor.start();
      await untilNonePending();

      for (const clientId of ['a', 'b', 'c']) expect((await enter(clientId)).status).toBe(200);
      await turns();
      // Acknowledged and logged; their effects wait for the window (20 ms) that the first one opened.
      expect((await effectsTimes()).slice(1).map((row) => row.outcome)).toEqual(['pending', 'pending', 'pending']);

      await vi.advanceTimersByTimeAsync(20);
      await untilNonePending();
      const [first, ...gathered] = await effectsTimes();
      expect(gathered.map((row) => row.outcome)).toEqual(['processed', 'processed', 'processed']);
      expect(new Set(gathered.map((row) => row.effectsMs)).size).toBe(1);
      expect(gathered[0]!.effectsMs).toBeGreaterThan(first!.effectsMs!);
      const present = await store().db.selectFrom('presence').select('client_id').where('file_id', '=', 'plan').where('present', '=', 1).orderBy('client_id').execute();
      expect(present.map((row) => row.client_id)).toEqual(['a', 'b', 'c', 'first']);
    } finally {
      await pipeline.processor.stop();
      await pipeline.close();
      await app.close();
    }
  });
});
