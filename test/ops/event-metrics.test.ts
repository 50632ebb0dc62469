import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SEARCH_COUNT_CAP } from '../../src/directory/search-page.js';
import type { EventPipeline } from '../../src/events/event-pipeline.js';
import { eventMetricsCollector } from '../../src/http/event-metrics.js';
import { upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { buildEventApp, commentCreate, postEvent, signedHeaders, tokenHeaders } from '../events/event-fixtures.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { search } from '../search/search-http.js';
import { promtool, promtoolCheck, sample, samples } from './prometheus.js';

/** More acme members than the search's count cap. */
const BULK = Array.from({ length: SEARCH_COUNT_CAP + 5 }, (_, i) => {
  const n = String(i + 1).padStart(4, '0');
  return { id: `bulk${n}`, name: `Bulk ${n}`, email: `bulk${n}@example.com`, avatar: null, teamId: 'acme', departmentIds: [], watermark: null };
});

describeEachStore('/metrics: events, search, audit', (store) => {
  let app: FastifyInstance;
  let pipeline: EventPipeline;
  let text: string;
  beforeAll(async () => {
    await seedDirectory(store().db);
    await upsertUsers(store().db, BULK);
    let settle: () => Promise<void>;
    ({ app, pipeline, settle } = await buildEventApp(store()));
    const comment = (guid: string, fileId = 'plan') => commentCreate(fileId, 'zhang', { guid, content: guid });
    const status = async (kind: string, body: unknown, headers: Record<string, string>) => (await postEvent(app, kind, body, headers)).statusCode;
    expect(await status('Comment', comment('c-1'), tokenHeaders('zhang'))).toBe(200); // accepted
    expect(await status('Comment', comment('c-1'), tokenHeaders('zhang'))).toBe(200); // the same delivery again: duplicate
    expect(await status('Comment', commentCreate('secret', 'lilei', { guid: 'c-2', content: 'x' }), tokenHeaders('lilei'))).toBe(403); // no permission: refused (kept in the log)
    expect(await status('Comment', comment('c-3'), {})).toBe(401); // unauthenticated
    // Kinds the interface does not know are stored (forward compatibility) and count as kind="other".
    expect(await status('Holograms', { kind: 'holograms', fileId: 'plan' }, signedHeaders('plan'))).toBe(200);
    expect(await status('Telepathy', { kind: 'telepathy', fileId: 'plan' }, signedHeaders('plan'))).toBe(200);
    await settle();
    // One more, not processed: waiting.
    expect(await status('Comment', comment('c-4'), tokenHeaders('zhang'))).toBe(200);

    await search(app, 'zhang', { type: 'team_member', keyword: 'bulk', page: 0, pageSize: 20 }); // capped
    await search(app, 'zhang', { type: 'team_member,department', keyword: 'bulk0001', page: 0, pageSize: 20 }); // not capped
    await app.inject({ method: 'GET', url: '/files/plan', headers: tokenHeaders('zhang') }); // an audit entry

    // One scrape for every check: the store-backed series are shared by the scrapes of five seconds.
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    text = response.body;
  });
  afterAll(async () => {
    await app.close();
  });

  it.skipIf(!promtool)('is still an exposition that promtool accepts', () => {
    const check = promtoolCheck(text);
    expect(check.output).toBe('');
    expect(check.ok).toBe(true);
  });

  it('counts event intake per kind and outcome; unknown kinds fold into kind="other"', () => {
    const all = samples(text);
    const received = (kind: string, outcome: string) => sample(all, 'collab_host_events_received_total', { kind, outcome });
    expect(received('Comment', 'accepted')).toBe(2);
    expect(received('Comment', 'duplicate')).toBe(1);
    expect(received('Comment', 'refused')).toBe(1);
    expect(received('Comment', 'unauthenticated')).toBe(1);
    expect(received('other', 'accepted')).toBe(2);
    expect(text).not.toContain('Holograms');
  });

  it('reports events waiting, the effect lag and the refused and unprocessed events of the log', () => {
    const all = samples(text);
    expect(sample(all, 'collab_host_events_waiting')).toBe(1);
    expect(sample(all, 'collab_host_events_oldest_waiting_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(all, 'collab_host_event_effect_lag_seconds', { percentile: 'p50' })).toBeGreaterThanOrEqual(0);
    expect(sample(all, 'collab_host_event_effect_lag_seconds', { percentile: 'p99' })).toBeGreaterThanOrEqual(
      sample(all, 'collab_host_event_effect_lag_seconds', { percentile: 'p50' }),
    );
    expect(sample(all, 'collab_host_events_logged', { outcome: 'refused' })).toBe(1);
    expect(sample(all, 'collab_host_events_logged', { outcome: 'unprocessed' })).toBe(2);
  });

  it('counts processing outcomes per kind (the process that derived the effects)', async () => {
    const registry = new Registry();
    eventMetricsCollector(pipeline.counters, () => pipeline.stats())(registry);
    const all = samples(await registry.metrics());
    expect(sample(all, 'collab_host_events_processed_total', { kind: 'Comment', outcome: 'processed' })).toBe(1);
    expect(sample(all, 'collab_host_events_processed_total', { kind: 'other', outcome: 'unprocessed' })).toBe(2);
  });

  it('counts searches whose count reached the cap, per kind', () => {
    const all = samples(text);
    expect(sample(all, 'collab_host_search_counts_capped_total', { kind: 'teamMembers' })).toBe(1);
    expect(all.filter((s) => s.name === 'collab_host_search_counts_capped_total')).toHaveLength(1);
  });

  it('reports the audit buffer', () => {
    const all = samples(text);
    expect(sample(all, 'collab_host_audit_entries_total', { state: 'recorded' })).toBeGreaterThanOrEqual(1);
    expect(sample(all, 'collab_host_audit_entries_total', { state: 'dropped' })).toBe(0);
    expect(sample(all, 'collab_host_audit_buffered_entries')).toBeGreaterThanOrEqual(0);
  });
});
