import { useEffect, useState } from 'preact/hooks';
import { get, post, query, type Listing } from '../api.js';
import { Badge, Json, Panel, Time } from '../components/common.js';
import type { EventItem } from '../types.js';

const KINDS = ['', 'Comment', 'Discussion', 'MentionAt', 'DateMention', 'FileContent', 'Collaborator', 'Revision', 'System'];

/** '' is the default listing: the accepted events (pending, processed, unprocessed). */
const OUTCOMES = ['', 'refused', 'unprocessed', 'pending', 'processed'];

interface Filters {
  fileId: string;
  kind: string;
  since: string;
  outcome: string;
}

interface Reprocessed {
  id: number;
  outcome: EventItem['outcome'];
  problem: string | null;
}

/** Who really sent the event (the token's user), flagged when the body names someone else. */
const senderOf = (item: EventItem) =>
  item.senderId === null ? <span class="muted">no token</span> : <code class={item.userId !== null && item.userId !== item.senderId ? 'error' : ''}>{item.senderId}</code>;
/** A forged actor or a missing permission: re-processing never accepts it (docs/events.md). */
const standingRefusal = (item: EventItem) => item.outcome === 'refused' && /^(actor_mismatch|permission_denied):/.test(item.problem ?? '');
const outcomeBadge = (outcome: string | undefined) => <Badge tone={outcome === 'processed' ? 'good' : outcome === 'pending' ? 'plain' : 'warn'}>{outcome ?? ''}</Badge>;

/** datetime-local (the browser's local time) to the API's UTC `YYYY-MM-DDThh:mm:ssZ`. */
function toApiTime(local: string): string | undefined {
  if (local === '') return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The event log, oldest first, with filters (refused and unprocessed events too), paging, a body viewer and re-processing. */
export function Events() {
  const [draft, setDraft] = useState<Filters>({ fileId: '', kind: '', since: '', outcome: '' });
  const [items, setItems] = useState<EventItem[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [open, setOpen] = useState<EventItem | null>(null);

  const load = async (filters: Filters, cursor: string | null) => {
    setError(null);
    try {
      const page = await get<Listing<EventItem>>(
        `/api/events${query({ fileId: filters.fileId, kind: filters.kind, since: toApiTime(filters.since), outcome: filters.outcome, order: 'newest', limit: '100', cursor: cursor ?? undefined })}`,
      );
      setItems((previous) => (cursor === null ? page.items : [...previous, ...page.items]));
      setNext(page.nextCursor);
      setLoaded(true);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  useEffect(() => {
    void load(draft, null);
  }, []);
  const [reprocessed, setReprocessed] = useState<{ id: number; text: string } | null>(null);
  const reprocess = async (event: EventItem) => {
    setError(null);
    setReprocessed(null);
    try {
      const done = await post<Reprocessed>(`/api/events/${event.id}/reprocess`);
      const updated = { ...event, outcome: done.outcome, problem: done.problem };
      setItems((previous) => previous.map((item) => (item.id === event.id ? updated : item)));
      setOpen(updated);
      // Said even when the outcome is the same as before: the button did something.
      setReprocessed({ id: event.id, text: done.outcome === event.outcome ? `Re-processed: still ${done.outcome}.` : `Re-processed: now ${done.outcome} (was ${event.outcome}).` });
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <div class="page">
      <h1>Events</h1>
      <Panel title="Filters">
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            setOpen(null);
            void load(draft, null);
          }}
        >
          <label>
            <span>file id</span>
            <input value={draft.fileId} onInput={(e) => setDraft({ ...draft, fileId: (e.target as HTMLInputElement).value.trim() })} />
          </label>
          <label>
            <span>kind</span>
            <select value={draft.kind} onChange={(e) => setDraft({ ...draft, kind: (e.target as HTMLSelectElement).value })}>
              {KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {kind === '' ? 'any' : kind}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>since (local time)</span>
            <input type="datetime-local" step="1" value={draft.since} onInput={(e) => setDraft({ ...draft, since: (e.target as HTMLInputElement).value })} />
          </label>
          <label>
            <span>outcome</span>
            <select value={draft.outcome} onChange={(e) => setDraft({ ...draft, outcome: (e.target as HTMLSelectElement).value })}>
              {OUTCOMES.map((outcome) => (
                <option key={outcome} value={outcome}>
                  {outcome === '' ? 'accepted' : outcome}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Apply</button>
        </form>
      </Panel>
      {error !== null && <p class="error">{error}</p>}
      <div class="columns">
        <Panel title={`Log (${items.length}${next !== null ? '+' : ''})`}>
          <table class="results clickable">
            <thead>
              <tr>
                <th>#</th>
                <th>received</th>
                <th>kind</th>
                <th>action</th>
                <th>file</th>
                <th>user</th>
                <th>sent by</th>
                <th>outcome</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id} class={open?.id === item.id ? 'selected' : ''} onClick={() => setOpen(item)}>
                  <td>{item.id}</td>
                  <td>
                    <Time value={item.receivedAt} />
                  </td>
                  <td>{item.kind}</td>
                  <td>{item.action ?? ''}</td>
                  <td>
                    <code>{item.fileId ?? ''}</code>
                  </td>
                  <td>
                    <code>{item.userId ?? ''}</code>
                  </td>
                  <td>{senderOf(item)}</td>
                  <td>{outcomeBadge(item.outcome)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {loaded && items.length === 0 && <p class="muted">No events match.</p>}
          {next !== null && (
            <button type="button" onClick={() => void load(draft, next)}>
              Load more
            </button>
          )}
        </Panel>
        <Panel title={open ? `Event ${open.id}: ${open.kind} ${open.action ?? ''}` : 'Body'}>
          {open ? (
            <>
              <p>
                {outcomeBadge(open.outcome)} {open.problem && <span class="error">{open.problem}</span>}
              </p>
              {reprocessed?.id === open.id && (
                <p class="ok" role="status">
                  {reprocessed.text}
                </p>
              )}
              <p>Sent by {senderOf(open)}</p>
              {standingRefusal(open) && <p class="muted">This refusal stands: re-processing keeps it refused.</p>}
              {(open.outcome === 'refused' || open.outcome === 'unprocessed') && !standingRefusal(open) && (
                <p>
                  <button type="button" onClick={() => void reprocess(open)}>
                    Re-process under today’s rules
                  </button>
                </p>
              )}
              <Json value={open.body} />
            </>
          ) : (
            <p class="muted">Pick an event to see its body as received.</p>
          )}
        </Panel>
      </div>
    </div>
  );
}
