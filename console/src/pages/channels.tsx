import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { Badge, LoadState, Panel, Time, useLoad } from '../components/common.js';
import type { ChannelDelivery, ChannelView } from '../types.js';

const TONE: Record<string, 'good' | 'bad' | 'warn'> = { failed: 'bad', pending: 'warn', delivered: 'good' };

/**
 * Notification channels (e-mail and group bots, docs/notifications.md): each with its deliveries by
 * status and its last error; the latest deliveries of the one chosen, with the person each is for.
 * Targets show their origin only and secrets never: the API does not send them.
 */
export function Channels() {
  const channels = useLoad(() => get<{ items: ChannelView[] }>('/api/notification-channels'), []);
  const [chosen, setChosen] = useState<string | null>(null);
  return (
    <div class="page">
      <h1>Channels</h1>
      <LoadState loaded={channels}>
        {() => {
          const items = channels.data!.items;
          return (
            <>
              <Panel
                title={`${items.length} channel${items.length === 1 ? '' : 's'}`}
                actions={
                  <button type="button" class="quiet" onClick={channels.reload}>
                    Refresh
                  </button>
                }
              >
                {items.length === 0 && <p class="muted">No channels: set SMTP_URL or a bot's webhook, or PUT /api/notification-channels/{'{id}'}.</p>}
                {items.length > 0 && (
                  <table class="results channels">
                    <thead>
                      <tr>
                        <th>channel</th>
                        <th>kind</th>
                        <th>team</th>
                        <th>target</th>
                        <th>gets</th>
                        <th>delivered</th>
                        <th>pending</th>
                        <th>failed</th>
                        <th>last error</th>
                      </tr>
                    </thead>
                    <tbody>
                      {items.map((channel) => (
                        <tr key={channel.id} data-channel={channel.id} class={chosen === channel.id ? 'selected' : ''} onClick={() => setChosen(channel.id)}>
                          <td>
                            <strong>{channel.name}</strong> <code>{channel.id}</code> {!channel.enabled && <Badge tone="warn">off</Badge>}
                          </td>
                          <td>{channel.kind}</td>
                          <td>{channel.teamId ?? 'every team'}</td>
                          <td>
                            <code>{channel.target}</code> {channel.secretSet && <Badge tone="plain">signed</Badge>}
                          </td>
                          <td>{[...(channel.personal ? ['personal notices'] : []), ...channel.subscriptions].join(', ') || '—'}</td>
                          <td>{channel.deliveries.delivered}</td>
                          <td>{channel.deliveries.pending}</td>
                          <td>{channel.deliveries.failed > 0 ? <Badge tone="bad">{channel.deliveries.failed}</Badge> : 0}</td>
                          <td class="error-text">{channel.deliveries.lastError ?? ''}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Panel>
              {chosen !== null && <Deliveries channelId={chosen} />}
            </>
          );
        }}
      </LoadState>
    </div>
  );
}

function Deliveries({ channelId }: { channelId: string }) {
  const listed = useLoad(() => get<{ items: ChannelDelivery[] }>(`/api/notification-channels/${encodeURIComponent(channelId)}/deliveries?limit=50`), [channelId]);
  return (
    <Panel
      title={`Latest deliveries of ${channelId}`}
      actions={
        <button type="button" class="quiet" onClick={listed.reload}>
          Refresh
        </button>
      }
    >
      <LoadState loaded={listed}>
        {() => (
          <table class="results deliveries">
            <thead>
              <tr>
                <th>notification</th>
                <th>for</th>
                <th>status</th>
                <th>attempts</th>
                <th>last error</th>
                <th>delivered</th>
              </tr>
            </thead>
            <tbody>
              {listed.data!.items.map((delivery) => (
                <tr key={`${delivery.notificationId}-${delivery.recipient ?? ''}`}>
                  <td>
                    {delivery.type} <Time value={delivery.occurredAt} />
                  </td>
                  <td>{delivery.recipient ?? 'the channel'}</td>
                  <td>
                    <Badge tone={TONE[delivery.status] ?? 'plain'}>{delivery.status}</Badge>
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
        )}
      </LoadState>
    </Panel>
  );
}
