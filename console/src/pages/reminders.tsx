import { useState } from 'preact/hooks';
import { collect, get, query } from '../api.js';
import { Badge, LoadState, Panel, Time, relative, useLoad } from '../components/common.js';
import type { FileItem, Presence, ReminderItem, SearchResult } from '../types.js';

/** Reminders (late, upcoming, the rest) and who has which file open now. */
export function Reminders() {
  const [fileId, setFileId] = useState('');
  const [applied, setApplied] = useState('');
  const reminders = useLoad(() => collect<ReminderItem>(`/api/reminders${query({ fileId: applied })}`), [applied]);
  const presence = useLoad(presenceOfFiles, []);
  const now = Date.now();
  return (
    <div class="page">
      <h1>Reminders and presence</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(fileId.trim());
        }}
      >
        <label>
          <span>file id</span>
          <input value={fileId} onInput={(e) => setFileId((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Apply</button>
      </form>
      <LoadState loaded={reminders}>
        {() => {
          const all = reminders.data!.items;
          const scheduled = all.filter((r) => r.status === 'scheduled');
          const late = scheduled.filter((r) => Date.parse(r.remindAt) <= now);
          const upcoming = scheduled.filter((r) => Date.parse(r.remindAt) > now).sort((a, b) => a.remindAt.localeCompare(b.remindAt));
          const done = all.filter((r) => r.status !== 'scheduled');
          return (
            <>
              <Panel title={`Late (${late.length}): due, not fired yet`}>
                <ReminderTable items={late} now={now} />
              </Panel>
              <Panel title={`Upcoming (${upcoming.length})`}>
                <ReminderTable items={upcoming} now={now} />
              </Panel>
              <Panel title={`Fired or cancelled (${done.length})`}>
                <ReminderTable items={done} now={now} />
              </Panel>
            </>
          );
        }}
      </LoadState>
      <Panel
        title="Presence: who has a file open now"
        actions={
          <button type="button" class="quiet" onClick={presence.reload}>
            Refresh
          </button>
        }
      >
        <LoadState loaded={presence}>
          {() => {
            const open = presence.data!.files.filter((entry) => entry.presence.users.length > 0);
            return (
              <>
                {open.length === 0 && <p class="muted">No one has any of these files open.</p>}
                <table>
                  <tbody>
                    {open.map(({ file, presence: p }) => (
                      <tr key={file.id}>
                        <td>
                          {file.name} <code>{file.id}</code>
                        </td>
                        <td>
                          {p.users.map((user) => (
                            <div key={user.userId}>
                              <code>{user.userId}</code> on {user.clients.length} client{user.clients.length === 1 ? '' : 's'} ({user.clients.join(', ')}), since{' '}
                              <Time value={user.since} />
                            </div>
                          ))}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <p class="muted">
                  Checked the first {presence.data!.files.length} files by name{presence.data!.more ? ` of ${presence.data!.count}` : ''}.
                </p>
              </>
            );
          }}
        </LoadState>
      </Panel>
    </div>
  );
}

const PRESENCE_FILES = 50;

/** Presence of the first files by name (one request each: the API answers presence per file). */
async function presenceOfFiles() {
  const files = await get<SearchResult<FileItem>>(`/api/directory/search/files?limit=${PRESENCE_FILES}`);
  const entries = await Promise.all(files.items.map(async (file) => ({ file, presence: await get<Presence>(`/api/files/${encodeURIComponent(file.id)}/presence`) })));
  return { files: entries, count: files.count, more: files.count > files.items.length };
}

function ReminderTable({ items, now }: { items: ReminderItem[]; now: number }) {
  if (items.length === 0) return <p class="muted">None.</p>;
  return (
    <table class="results">
      <thead>
        <tr>
          <th>remind at</th>
          <th>status</th>
          <th>file</th>
          <th>author</th>
          <th>to</th>
          <th>content</th>
        </tr>
      </thead>
      <tbody>
        {items.map((reminder) => (
          <tr key={`${reminder.fileId}/${reminder.id}`}>
            <td>
              <Time value={reminder.remindAt} /> <span class="muted">{relative(reminder.remindAt, now)}</span>
            </td>
            <td>
              <Badge tone={reminder.status === 'scheduled' ? (Date.parse(reminder.remindAt) <= now ? 'warn' : 'plain') : reminder.status === 'fired' ? 'good' : 'plain'}>
                {reminder.status}
              </Badge>
            </td>
            <td>
              <code>{reminder.fileId}</code>
            </td>
            <td>
              <code>{reminder.authorId}</code>
            </td>
            <td>{reminder.remindUserIds.join(', ')}</td>
            <td>{reminder.content}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
