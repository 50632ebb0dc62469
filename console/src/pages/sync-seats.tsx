import { useState } from 'preact/hooks';
import { ApiError, get, platformConfigured, type Listing } from '../api.js';
import { Badge, LoadState, Panel, Stat, Time, relative, useLoad } from '../components/common.js';
import { usePaged } from '../components/paged.js';
import type { AppDetails, SeatTask, SeatTaskStatus, SyncRun } from '../types.js';

/** The sources that record runs (src/sync): snapshot imports and management API writes do not. */
const SOURCES = [
  { id: 'scim', title: 'SCIM' },
  { id: 'ldap', title: 'LDAP' },
] as const;
const RUN_TONE: Record<string, 'good' | 'bad' | 'warn' | 'plain'> = { ok: 'good', unchanged: 'plain', failed: 'bad', running: 'warn' };
const SEAT_TABS: Array<{ status: SeatTaskStatus; title: string }> = [
  { status: 'pending', title: 'waiting' },
  { status: 'done', title: 'done' },
  { status: 'superseded', title: 'superseded' },
];

const sourceTitle = (source: string) => SOURCES.find((s) => s.id === source)?.title ?? source;

/**
 * "1 created, 2 updated, 1 skipped" (only what moved); a failed run wrote nothing, or only the leavers
 * an LDAP run writes first (counted).
 */
function countsText(run: SyncRun): string {
  const parts = Object.entries(run.counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  if (parts.length > 0) return parts.join(', ');
  return run.status === 'failed' ? 'nothing written' : run.status === 'running' ? '…' : 'no change';
}

/** The entries a run left out, each by DN and why (at most 200 listed; the count is exact). */
function Skipped({ run }: { run: SyncRun }) {
  if (run.skipped.length === 0) return null;
  return (
    <details class="skipped">
      <summary class="warn-text">
        {run.counts.skipped} {run.counts.skipped === 1 ? 'entry' : 'entries'} skipped
      </summary>
      {run.skipped.map((entry) => (
        <div key={entry.dn}>
          <code>{entry.dn}</code>: {entry.reason}
        </div>
      ))}
    </details>
  );
}

/** Directory sync runs (last per source, then all, page by page) and the platform's seats: licence and seat tasks. */
export function SyncSeats() {
  return (
    <div class="page">
      <h1>Sync and seats</h1>
      <LastRuns />
      <Runs />
      <Licence />
      <SeatTasks />
    </div>
  );
}

function LastRuns() {
  const last = useLoad(
    () => Promise.all(SOURCES.map(async (source) => ({ source, run: (await get<Listing<SyncRun>>(`/api/sync/runs?source=${source.id}&limit=1`)).items[0] }))),
    [],
  );
  return (
    <Panel
      title="Last run per source"
      actions={
        <button type="button" class="quiet" onClick={last.reload}>
          Refresh
        </button>
      }
    >
      <LoadState loaded={last}>
        {() => (
          <table>
            <thead>
              <tr>
                <th>source</th>
                <th>when</th>
                <th>status</th>
                <th>counts</th>
                <th>errors</th>
              </tr>
            </thead>
            <tbody>
              {last.data!.map(({ source, run }) => (
                <tr key={source.id} data-source={source.id}>
                  <td>{source.title}</td>
                  {run === undefined ? (
                    <td colSpan={4} class="muted">
                      No run yet.
                    </td>
                  ) : (
                    <>
                      <td>
                        <Time value={run.startedAt} /> <span class="muted">({relative(run.startedAt)})</span>
                      </td>
                      <td>
                        <Badge tone={RUN_TONE[run.status] ?? 'plain'}>{run.status}</Badge>
                        {run.dryRun && <span class="muted"> dry run</span>}
                      </td>
                      <td>
                        {countsText(run)}
                        <Skipped run={run} />
                      </td>
                      <td class="error-text">{run.errors.join('; ')}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadState>
      <p class="muted">SCIM records one run per write request, LDAP one per sync. Snapshot imports and management API writes are not recorded as runs.</p>
    </Panel>
  );
}

function Runs() {
  const [source, setSource] = useState('');
  const runs = usePaged<SyncRun>(`/api/sync/runs${source === '' ? '' : `?source=${source}`}`);
  return (
    <Panel title={`Runs (${runs.items.length}${runs.hasMore ? '+' : ''}), newest first`}>
      <div class="tabs" role="tablist" aria-label="Source">
        {[{ id: '', title: 'all' }, ...SOURCES].map((s) => (
          <button key={s.id} type="button" role="tab" aria-selected={source === s.id} class={source === s.id ? 'active' : ''} onClick={() => setSource(s.id)}>
            {s.title}
          </button>
        ))}
        <button type="button" class="quiet" onClick={runs.reload}>
          Refresh
        </button>
      </div>
      {runs.error !== null && <p class="error">{runs.error}</p>}
      <table class="runs">
        <thead>
          <tr>
            <th>#</th>
            <th>started</th>
            <th>source</th>
            <th>status</th>
            <th>duration</th>
            <th>counts</th>
            <th>what ran</th>
            <th>errors</th>
          </tr>
        </thead>
        <tbody>
          {runs.items.map((run) => (
            <tr key={run.id} data-run={run.id}>
              <td>{run.id}</td>
              <td>
                <Time value={run.startedAt} />
              </td>
              <td>
                {sourceTitle(run.source)} <span class="muted">{run.mode}</span>
              </td>
              <td>
                <Badge tone={RUN_TONE[run.status] ?? 'plain'}>{run.status}</Badge>
                {run.dryRun && <span class="muted"> dry run</span>}
              </td>
              <td>{run.durationMs === null ? '—' : `${run.durationMs} ms`}</td>
              <td>
                {countsText(run)}
                <Changes changes={run.changes} />
                <Skipped run={run} />
              </td>
              <td>
                <code>{run.detail ?? ''}</code>
              </td>
              <td class="error-text">
                {run.errors.map((error, index) => (
                  <div key={index}>{error}</div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.loaded && runs.items.length === 0 && <p class="muted">No runs recorded{source === '' ? '' : ` for ${sourceTitle(source)}`}.</p>}
      {runs.hasMore && (
        <button type="button" onClick={runs.more}>
          Load more
        </button>
      )}
    </Panel>
  );
}

/** The ids a run changed, per section and kind (at most 200 per list, as recorded). */
function Changes({ changes }: { changes: SyncRun['changes'] }) {
  const lines = Object.entries(changes).flatMap(([section, kinds]) => Object.entries(kinds).map(([kind, ids]) => `${section} ${kind}: ${ids.join(', ')}`));
  if (lines.length === 0) return null;
  return (
    <details>
      <summary>ids</summary>
      {lines.map((line) => (
        <div key={line}>
          <code>{line}</code>
        </div>
      ))}
    </details>
  );
}

function Licence() {
  const app = useLoad(
    () =>
      // Without PLATFORM_API_URL there is nothing to ask (and no 503 in the browser's console).
      (platformConfigured() ? get<AppDetails>('/api/platform/app') : Promise.resolve(null)).catch((error: unknown) => {
        // Without PLATFORM_API_URL there is no platform to ask: say so rather than show an error.
        if (error instanceof ApiError && error.code === 'platform_not_configured') return null;
        throw error;
      }),
    [],
  );
  return (
    <Panel
      title="Licence (the platform's view)"
      actions={
        <button type="button" class="quiet" onClick={app.reload}>
          Refresh
        </button>
      }
    >
      <LoadState loaded={app}>
        {() => {
          const details = app.data;
          if (!details) return <p class="muted">PLATFORM_API_URL is not set: collab-host does not call the platform, so there is no licence to show.</p>;
          const full = details.memberLimit !== undefined && details.activatedUserCount !== undefined && details.activatedUserCount >= details.memberLimit;
          return (
            <div class="stats licence">
              <Stat label="application" value={details.appName} />
              <Stat
                label="seats in use"
                value={`${details.activatedUserCount ?? '?'} / ${details.memberLimit ?? '?'}`}
                detail={full ? <span class="error-text">all licensed seats are taken</span> : undefined}
              />
              <Stat label="users on the platform" value={details.userCount ?? '?'} detail="activated, disabled and never enabled" />
              <Stat
                label="valid"
                value={
                  <span class="small">
                    {details.validFrom ?? '?'} – {details.validUntil ?? '?'}
                  </span>
                }
              />
              <Stat label="callback address" value={<code>{details.endpointUrl || '—'}</code>} />
            </div>
          );
        }}
      </LoadState>
    </Panel>
  );
}

function SeatTasks() {
  const [status, setStatus] = useState<SeatTaskStatus>('pending');
  const tasks = usePaged<SeatTask>(`/api/platform/seat-tasks?status=${status}`);
  const failing = tasks.items.filter((task) => task.status === 'pending' && task.lastError !== null).length;
  return (
    <Panel
      title={`Seat tasks: ${tasks.items.length}${tasks.hasMore ? '+' : ''} ${SEAT_TABS.find((t) => t.status === status)!.title}${status === 'pending' ? `, ${failing} failing` : ''}`}
    >
      <div class="tabs" role="tablist" aria-label="Seat task status">
        {SEAT_TABS.map((tab) => (
          <button
            key={tab.status}
            type="button"
            role="tab"
            aria-selected={status === tab.status}
            class={status === tab.status ? 'active' : ''}
            onClick={() => setStatus(tab.status)}
          >
            {tab.title}
          </button>
        ))}
        <button type="button" class="quiet" onClick={tasks.reload}>
          Refresh
        </button>
      </div>
      {platformConfigured() ? (
        <p class="muted">
          Deactivating or removing a user queues a seat deactivation, re-activating queues an activation. A failed call is retried with backoff until it succeeds.
        </p>
      ) : (
        <p class="muted no-platform">
          PLATFORM_API_URL is not set: directory changes queue no seat tasks, and none is sent. Any listed here were queued while a platform was configured; they wait until it is
          set again.
        </p>
      )}
      {tasks.error !== null && <p class="error">{tasks.error}</p>}
      <table class="seat-tasks">
        <thead>
          <tr>
            <th>#</th>
            <th>user</th>
            <th>action</th>
            <th>status</th>
            <th>attempts</th>
            <th>{status === 'pending' ? 'next attempt' : 'finished'}</th>
            <th>last error</th>
            <th>queued</th>
          </tr>
        </thead>
        <tbody>
          {tasks.items.map((task) => (
            <tr key={task.id} data-seat-task={task.id}>
              <td>{task.id}</td>
              <td>
                <code>{task.userId}</code>
              </td>
              <td>{task.action}</td>
              <td>
                <Badge tone={task.status === 'done' ? 'good' : task.status === 'superseded' ? 'plain' : task.lastError !== null ? 'bad' : 'warn'}>
                  {task.status === 'pending' ? (task.lastError !== null ? 'failing' : 'waiting') : task.status}
                </Badge>
              </td>
              <td>{task.attempts}</td>
              <td>
                {task.status === 'pending' && !platformConfigured() ? (
                  <span class="muted">once PLATFORM_API_URL is set</span>
                ) : (
                  <Time value={task.status === 'pending' ? task.nextAttemptAt : task.doneAt} />
                )}
              </td>
              <td class="error-text">{task.lastError ?? ''}</td>
              <td>
                <Time value={task.createdAt} /> <span class="muted">by {task.source}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {tasks.loaded && tasks.items.length === 0 && <p class="muted">No {SEAT_TABS.find((t) => t.status === status)!.title} seat tasks.</p>}
      {tasks.hasMore && (
        <button type="button" onClick={tasks.more}>
          Load more
        </button>
      )}
    </Panel>
  );
}
