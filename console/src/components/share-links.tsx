import { useState } from 'preact/hooks';
import { ApiError, get, request } from '../api.js';
import type { ShareLinkItem } from '../types.js';
import { Badge, LoadState, Panel, Time, useLoad } from './common.js';

const STATE_TONE: Record<ShareLinkItem['state'], 'good' | 'bad' | 'warn'> = { active: 'good', revoked: 'bad', expired: 'warn', used_up: 'warn' };

/**
 * A file's share links (docs/sharing.md): role, state, uses, the guests who took a token and when each
 * last used it; an active link can be revoked after a confirmation.
 */
export function ShareLinks({ fileId, fileName, onClose }: { fileId: string; fileName: string; onClose: () => void }) {
  const links = useLoad(() => get<{ items: ShareLinkItem[] }>(`/api/files/${encodeURIComponent(fileId)}/share-links`), [fileId]);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const revoke = async (link: ShareLinkItem) => {
    try {
      await request<void>('DELETE', `/api/share-links/${encodeURIComponent(link.id)}`);
      setMessage({ tone: 'ok', text: `Link ${link.id} revoked: its guests are refused from their next request.` });
    } catch (error) {
      setMessage({ tone: 'error', text: error instanceof ApiError ? error.message : String(error) });
    }
    setConfirming(null);
    links.reload();
  };
  return (
    <Panel
      title={`Share links of ${fileName}`}
      actions={
        <button type="button" class="quiet" onClick={onClose}>
          Close
        </button>
      }
    >
      {message !== null &&
        (message.tone === 'ok' ? (
          <p class="ok" role="status">
            {message.text}
          </p>
        ) : (
          <p class="error" role="alert">
            {message.text}
          </p>
        ))}
      <LoadState loaded={links}>
        {() =>
          links.data!.items.length === 0 ? (
            <p class="muted">No share links on this file.</p>
          ) : (
            <table class="results share-links">
              <thead>
                <tr>
                  <th>link</th>
                  <th>role</th>
                  <th>state</th>
                  <th>uses</th>
                  <th>expires</th>
                  <th>guests (last use)</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                {links.data!.items.map((link) => (
                  <tr key={link.id} data-link={link.id}>
                    <td>
                      <code>{link.id}</code>
                      {link.hasPassword && <span class="muted"> · password</span>}
                      {link.anonymous && <span class="muted"> · anonymous</span>}
                    </td>
                    <td>{link.role}</td>
                    <td>
                      <Badge tone={STATE_TONE[link.state]}>{link.state.replace('_', ' ')}</Badge>
                    </td>
                    <td>
                      {link.uses}
                      {link.maxUses !== null && ` / ${link.maxUses}`}
                    </td>
                    <td>
                      <Time value={link.expiresAt} />
                    </td>
                    <td>
                      {link.guests.length === 0 ? (
                        <span class="muted">none yet</span>
                      ) : (
                        <ul class="guests">
                          {link.guests.map((guest) => (
                            <li key={guest.id}>
                              {guest.name} <Time value={guest.lastUsedAt} />
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>
                      {link.state !== 'revoked' &&
                        (confirming === link.id ? (
                          <span class="confirm">
                            <button type="button" class="danger" onClick={() => void revoke(link)}>
                              Confirm revoke
                            </button>{' '}
                            <button type="button" class="quiet" onClick={() => setConfirming(null)}>
                              Cancel
                            </button>
                          </span>
                        ) : (
                          <button type="button" class="quiet" aria-label={`Revoke ${link.id}`} onClick={() => setConfirming(link.id)}>
                            revoke
                          </button>
                        ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadState>
    </Panel>
  );
}
