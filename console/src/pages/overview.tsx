import { collect, get, query } from '../api.js';
import { Badge, LoadState, Panel, Stat, useLoad } from '../components/common.js';
import { MinuteChart } from '../components/minute-chart.js';
import type { DirectorySummary, EventItem, EventStats, NotificationItem, ReminderItem } from '../types.js';

const HOUR = 3600_000;

/** /healthz and /readyz, with the reason of each readiness check that failed. */
async function health(): Promise<{ alive: boolean; ready: 'ready' | 'not ready' | 'unreachable'; readyReason?: string }> {
  const alive = await fetch('/healthz').then(
    (response) => response.ok,
    () => false,
  );
  const readyResponse = await fetch('/readyz').catch(() => null);
  if (readyResponse === null) return { alive, ready: 'unreachable' };
  const body = (await readyResponse.json().catch(() => ({}))) as { checks?: Record<string, string> };
  const failed = Object.entries(body.checks ?? {}).filter(([, result]) => result !== 'ok');
  return {
    alive,
    ready: readyResponse.ok ? 'ready' : 'not ready',
    readyReason: failed.length > 0 ? failed.map(([name, result]) => `${name}: ${result}`).join('; ') : undefined,
  };
}

/** What the overview shows: the last hour read from the listings, the pipeline's figures from its stats. */
async function activity(now: number) {
  const since = new Date(now - HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const [stats, events, pending, failed, reminders] = await Promise.all([
    get<EventStats>('/api/events/stats'),
    collect<EventItem>(`/api/events${query({ since })}`, 10_000),
    collect<NotificationItem>('/api/notifications?status=pending'),
    collect<NotificationItem>('/api/notifications?status=failed'),
    collect<ReminderItem>('/api/reminders'),
  ]);
  const failuresByReceiver = new Map<string, number>();
  for (const notification of failed.items) {
    for (const delivery of notification.deliveries) {
      if (delivery.status === 'failed') failuresByReceiver.set(delivery.receiver, (failuresByReceiver.get(delivery.receiver) ?? 0) + 1);
    }
  }
  const scheduled = reminders.items.filter((reminder) => reminder.status === 'scheduled');
  const kinds = new Map<string, number>();
  for (const event of events.items) kinds.set(event.kind, (kinds.get(event.kind) ?? 0) + 1);
  return {
    stats,
    events,
    kinds: [...kinds.entries()].sort((a, b) => b[1] - a[1]),
    pending,
    failed,
    failuresByReceiver: [...failuresByReceiver.entries()],
    late: scheduled.filter((reminder) => Date.parse(reminder.remindAt) <= now),
    upcoming: scheduled.filter((reminder) => Date.parse(reminder.remindAt) > now),
    remindersComplete: reminders.complete,
  };
}

const atLeast = (count: number, complete: boolean) => (complete ? String(count) : `${count}+`);
const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

export function Overview() {
  const summary = useLoad(() => get<DirectorySummary>('/api/directory/summary'), []);
  const status = useLoad(health, []);
  const now = Date.now();
  const recent = useLoad(() => activity(now), []);
  return (
    <div class="page">
      <h1>Overview</h1>
      <Panel title="Directory">
        <LoadState loaded={summary}>
          {() => {
            const counts = summary.data!.counts;
            return (
              <div class="stats">
                <Stat label="Teams" value={counts.teams} />
                <Stat label="Departments" value={counts.departments} />
                <Stat label="Users" value={counts.users} detail={`${counts.activeUsers} active`} />
                <Stat label="Files" value={counts.files} />
              </div>
            );
          }}
        </LoadState>
      </Panel>
      <Panel title="Health">
        <LoadState loaded={status}>
          {() => (
            <div class="stats">
              <Stat label="/healthz" value={status.data!.alive ? <Badge tone="good">alive</Badge> : <Badge tone="bad">down</Badge>} />
              <Stat label="/readyz" value={<Badge tone={status.data!.ready === 'ready' ? 'good' : 'bad'}>{status.data!.ready}</Badge>} detail={status.data!.readyReason} />
            </div>
          )}
        </LoadState>
      </Panel>
      <LoadState loaded={recent}>
        {() => {
          const r = recent.data!;
          return (
            <>
              <Panel title="Event intake, last hour">
                <div class="stats">
                  <Stat label="events received" value={atLeast(r.events.items.length, r.events.complete)} />
                  {r.kinds.map(([kind, count]) => (
                    <Stat key={kind} label={kind} value={count} />
                  ))}
                </div>
                <MinuteChart times={r.events.items.map((event) => event.receivedAt)} now={now} />
                <div class="stats">
                  <Stat
                    label="waiting for effects"
                    value={r.stats.waiting.count}
                    detail={r.stats.waiting.count > 0 ? `oldest ${seconds(r.stats.waiting.oldestAgeMs)}` : undefined}
                  />
                  <Stat label="effect lag p50" value={r.stats.lag.p50Ms === null ? '–' : seconds(r.stats.lag.p50Ms)} />
                  <Stat label="effect lag p99" value={r.stats.lag.p99Ms === null ? '–' : seconds(r.stats.lag.p99Ms)} detail={`over ${r.stats.lag.sample} events`} />
                  <Stat label="refused" value={<Badge tone={r.stats.log.refused > 0 ? 'bad' : 'good'}>{r.stats.log.refused}</Badge>} />
                  <Stat label="unprocessed" value={<Badge tone={r.stats.log.unprocessed > 0 ? 'bad' : 'good'}>{r.stats.log.unprocessed}</Badge>} />
                </div>
              </Panel>
              <Panel title="Outbox">
                <div class="stats">
                  <Stat label="pending notifications" value={atLeast(r.pending.items.length, r.pending.complete)} />
                  <Stat label="failed notifications" value={<Badge tone={r.failed.items.length > 0 ? 'bad' : 'good'}>{atLeast(r.failed.items.length, r.failed.complete)}</Badge>} />
                </div>
                {r.failuresByReceiver.length > 0 && (
                  <table>
                    <thead>
                      <tr>
                        <th>receiver</th>
                        <th>failed deliveries</th>
                      </tr>
                    </thead>
                    <tbody>
                      {r.failuresByReceiver.map(([receiver, count]) => (
                        <tr key={receiver}>
                          <td>
                            <code>{receiver}</code>
                          </td>
                          <td>{count}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Panel>
              <Panel title="Reminders">
                <div class="stats">
                  <Stat label="late (due, not yet fired)" value={<Badge tone={r.late.length > 0 ? 'warn' : 'good'}>{r.late.length}</Badge>} />
                  <Stat label="upcoming" value={r.upcoming.length} />
                </div>
              </Panel>
            </>
          );
        }}
      </LoadState>
    </div>
  );
}
