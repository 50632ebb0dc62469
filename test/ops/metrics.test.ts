import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory, USERS } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { buildEventApp, commentCreate, postEvent, tokenHeaders } from '../events/event-fixtures.js';
import { promtool, promtoolCheck, sample, samples } from './prometheus.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
const NOW = Date.now();

describeEachStore('/metrics', (store, dialect) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    const { db } = store();
    await seedDirectory(db);
    let settle: () => Promise<void>;
    ({ app, settle } = await buildEventApp(store(), {
      notifyWebhookUrls: ['http://receiver.test/hook?token=secret-in-url', 'http://other.test/hook'],
      observability: { metricsToken: METRICS_TOKEN },
    }));
    // Two reminders past their time (one by more than the late bound), one ahead.
    const reminder = (id: string, dueMs: number) => ({
      file_id: 'plan',
      id,
      author_id: 'zhang',
      content: id,
      remind_user_ids: '[]',
      remind_at: new Date(dueMs).toISOString(),
      due_at_ms: dueMs,
      status: 'scheduled',
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
      fired_at: null,
    });
    await db
      .insertInto('reminders')
      .values([reminder('due', NOW - 10_000), reminder('late', NOW - 600_000), reminder('ahead', NOW + 600_000)])
      .execute();
    // A comment makes one notification, pending for both receivers (no worker runs here).
    expect((await postEvent(app, 'Comment', commentCreate('plan', 'zhang', { guid: 'm-1', content: 'hello' }), tokenHeaders('zhang'))).statusCode).toBe(200);
    await settle(); // the comment's effects are derived behind the acknowledgement
  });
  afterAll(async () => {
    await app.close();
  });

  const scrape = async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.body;
  };

  it('needs METRICS_TOKEN when it is set', async () => {
    const missing = await app.inject({ method: 'GET', url: '/metrics' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('metrics_token_missing');
    const wrong = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456780' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('metrics_token_invalid');
  });

  it.skipIf(!promtool)('is an exposition that Prometheus parses and accepts (promtool check metrics)', async () => {
    await app.inject({ method: 'GET', url: '/files/plan', headers: tokenHeaders('zhang') });
    const check = promtoolCheck(await scrape());
    expect(check.output).toBe('');
    expect(check.ok).toBe(true);
  });

  it('counts requests and their latency by route pattern and status, never by raw URL', async () => {
    const before = samples(await scrape());
    const was = (name: string, labels: Record<string, string>) =>
      before.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ? sample(before, name, labels) : 0;
    const ok = { method: 'GET', route: '/files/:fileId', status: '200' };
    const missing = { method: 'GET', route: '/files/:fileId', status: '404' };
    for (const fileId of ['plan', 'plan', 'nope']) await app.inject({ method: 'GET', url: `/files/${fileId}?x=1`, headers: tokenHeaders('zhang') });
    await app.inject({ method: 'GET', url: '/no/such/route' });
    const text = await scrape();
    const all = samples(text);
    expect(sample(all, 'collab_host_http_requests_total', ok) - was('collab_host_http_requests_total', ok)).toBe(2);
    expect(sample(all, 'collab_host_http_requests_total', missing) - was('collab_host_http_requests_total', missing)).toBe(1);
    expect(sample(all, 'collab_host_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(all, 'collab_host_http_request_duration_seconds_count', ok) - was('collab_host_http_request_duration_seconds_count', ok)).toBe(2);
    expect(sample(all, 'collab_host_http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(sample(all, 'collab_host_http_request_duration_seconds_count', ok));
    expect(text).not.toContain('/files/plan');
    expect(text).not.toContain('/no/such/route');
  });

  it('reports directory sizes, the outbox, deliveries per receiver and reminders from the store', async () => {
    const all = samples(await scrape());
    expect(sample(all, 'collab_host_directory_records', { kind: 'users_active' })).toBe(USERS.length);
    expect(sample(all, 'collab_host_directory_records', { kind: 'users_deactivated' })).toBe(0);
    expect(sample(all, 'collab_host_directory_records', { kind: 'teams' })).toBe(2);
    expect(sample(all, 'collab_host_outbox_pending_deliveries')).toBe(2);
    expect(sample(all, 'collab_host_outbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(all, 'collab_host_outbox_deliveries', { receiver: 'http://other.test/hook', status: 'pending' })).toBe(1);
    expect(sample(all, 'collab_host_outbox_delivery_attempts', { receiver: 'http://other.test/hook', status: 'pending' })).toBe(0);
    // A receiver's URL is a label with its credentials redacted.
    expect(sample(all, 'collab_host_outbox_deliveries', { receiver: 'http://receiver.test/hook?token=[redacted]' })).toBe(1);
    expect(sample(all, 'collab_host_reminders', { state: 'due' })).toBe(2);
    expect(sample(all, 'collab_host_reminders', { state: 'late' })).toBe(1);
  });

  it('reports the event loop, memory and, on PostgreSQL and MySQL, the connection pool', async () => {
    const all = samples(await scrape());
    expect(sample(all, 'collab_host_event_loop_delay_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(all, 'collab_host_process_resident_memory_bytes')).toBeGreaterThan(0);
    if (dialect !== 'sqlite') {
      expect(sample(all, 'collab_host_db_pool_connections', { state: 'max' })).toBe(4);
      expect(sample(all, 'collab_host_db_pool_connections', { state: 'open' })).toBeGreaterThanOrEqual(1);
    } else {
      expect(all.some((s) => s.name === 'collab_host_db_pool_connections')).toBe(false);
    }
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  it('is open', async () => {
    const { openDatabase } = await import('../../src/store/connection/database.js');
    const store = await openDatabase('sqlite::memory:');
    const app = await buildTestApp(store);
    try {
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('# TYPE collab_host_http_requests_total counter');
    } finally {
      await app.close();
      await store.close();
    }
  });
});
