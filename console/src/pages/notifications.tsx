import { useState } from 'preact/hooks';
import { ApiError, collect, post } from '../api.js';
import { Badge, Json, LoadState, Panel, Time, useLoad } from '../components/common.js';
import type { NotificationItem, NotificationStatus } from '../types.js';

const STATUSES: NotificationStatus[] = ['failed', 'pending', 'delivered'];
const TONE = { failed: 'bad', pending: 'warn', delivered: 'good' } as const;

/** Outgoing notifications by status, deliveries per receiver with attempts and last error, and re-send. */
export function Notifications() {
  const [status, setStatus] = useState<NotificationStatus>('failed');
  const listed = useLoad(() => collect<NotificationItem>(`/api/notifications?status=${status}`, 2000), [status]);
  const [message, setMessage] = useState<{ tone: 'good' | 'bad'; text: string } | null>(null);

  const resend = async (id: string) => {
    setMessage(null);
    try {
      await post(`/api/notifications/${encodeURIComponent(id)}/resend`);
      setMessage({ tone: 'good', text: `Notification ${id} is queued again: its failed deliveries will be retried.` });
    } catch (error) {
      setMessage({ tone: 'bad', text: error instanceof ApiError ? `${error.code}: ${error.message}` : String(error) });
    }
    listed.reload();
  };

  return (
    <div class="page">
      <h1>Notifications</h1>
      <div class="tabs" role="tablist">
        {STATUSES.map((name) => (
          <button key={name} type="button" role="tab" aria-selected={status === name} class={status === name ? 'active' : ''} onClick={() => setStatus(name)}>
            {name}
          </button>
        ))}
        <button type="button" class="quiet" onClick={listed.reload}>
          Refresh
        </button>
      </div>
      {message && (
        <p class={message.tone === 'good' ? 'ok' : 'error'} role="status">
          {message.text}
        </p>
      )}
      <LoadState loaded={listed}>
        {() => {
          const items = listed.data!.items;
          return (
            <>
              <Panel title={`By receiver (${status})`}>
                <ByReceiver items={items} status={status} />
              </Panel>
              <Panel title={`${items.length}${listed.data!.complete ? '' : '+'} ${status} notification${items.length === 1 ? '' : 's'}`}>
                {items.length === 0 && <p class="muted">None.</p>}
                {items.map((item) => (
                  <article key={item.id} class="notification" data-notification={item.id}>
                    <header>
                      <Badge tone={TONE[item.status]}>{item.status}</Badge> <strong>{item.type}</strong> <code>{item.id}</code>{' '}
                      <span class="muted">
                        <Time value={item.occurredAt} />, {item.attempts} attempt{item.attempts === 1 ? '' : 's'}
                      </span>
                      {item.status === 'failed' && (
                        <button type="button" class="primary" onClick={() => void resend(item.id)}>
                          Re-send
                        </button>
                      )}
                    </header>
                    <table>
                      <thead>
                        <tr>
                          <th>receiver</th>
                          <th>status</th>
                          <th>attempts</th>
                          <th>last error</th>
                          <th>delivered</th>
                        </tr>
                      </thead>
                      <tbody>
                        {item.deliveries.map((delivery) => (
                          <tr key={`${delivery.receiver}\n${delivery.recipient ?? ''}`}>
                            <td>
                              <code>{delivery.receiver}</code>
                              {delivery.recipient !== null && <span class="muted"> for {delivery.recipient}</span>}
                            </td>
                            <td>
                              <Badge tone={TONE[delivery.status]}>{delivery.status}</Badge>
                            </td>
                            <td>{delivery.attempts}</td>
                            <td class="error-text">{delivery.lastError ?? ''}</td>
                            <td>
                              <Time value={delivery.deliveredAt} />
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                    <details>
                      <summary>data</summary>
                      <Json value={item.data} />
                    </details>
                  </article>
                ))}
              </Panel>
            </>
          );
        }}
      </LoadState>
    </div>
  );
}

function ByReceiver({ items, status }: { items: NotificationItem[]; status: NotificationStatus }) {
  const receivers = new Map<string, { count: number; attempts: number; lastError: string | null }>();
  for (const item of items) {
    for (const delivery of item.deliveries) {
      if (delivery.status !== status) continue;
      const entry = receivers.get(delivery.receiver) ?? { count: 0, attempts: 0, lastError: null };
      entry.count += 1;
      entry.attempts += delivery.attempts;
      entry.lastError = delivery.lastError ?? entry.lastError;
      receivers.set(delivery.receiver, entry);
    }
  }
  if (receivers.size === 0) return <p class="muted">No {status} deliveries.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>receiver</th>
          <th>{status} deliveries</th>
          <th>attempts</th>
          <th>last error</th>
        </tr>
      </thead>
      <tbody>
        {[...receivers.entries()].map(([receiver, entry]) => (
          <tr key={receiver}>
            <td>
              <code>{receiver}</code>
            </td>
            <td>{entry.count}</td>
            <td>{entry.attempts}</td>
            <td class="error-text">{entry.lastError ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
