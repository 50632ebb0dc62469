import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, currentSession, signIn, signOut, whenSignedOut, type Session } from './api.js';
import { Channels } from './pages/channels.js';
import { Directory } from './pages/directory.js';
import { Events } from './pages/events.js';
import { Explain } from './pages/explain.js';
import { Notifications } from './pages/notifications.js';
import { Overview } from './pages/overview.js';
import { Reminders } from './pages/reminders.js';
import { SyncSeats } from './pages/sync-seats.js';
import './styles.css';

const PAGES = [
  { path: 'overview', title: 'Overview' },
  { path: 'directory', title: 'Directory' },
  { path: 'explain', title: 'Explain access' },
  { path: 'events', title: 'Events' },
  { path: 'notifications', title: 'Notifications' },
  { path: 'channels', title: 'Channels' },
  { path: 'reminders', title: 'Reminders & presence' },
  { path: 'sync', title: 'Sync and seats' },
] as const;

/** `#/explain?user=u&file=f` as the page and its parameters. */
function parseHash(hash: string): { page: string; params: URLSearchParams } {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  return { page: PAGES.some((p) => p.path === path) ? path : 'overview', params: new URLSearchParams(search) };
}

function useHashRoute() {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    currentSession().then(setSession, (error: unknown) => setProblem(String(error)));
  }, []);
  if (problem !== null) return <p class="error">{problem}</p>;
  if (session === undefined) return <p class="muted center">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={setSession} />;
  return <Shell session={session} onSignedOut={() => setSession(null)} />;
}

function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="sign-in">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          try {
            onSignedIn(await signIn(key));
            setKey('');
          } catch (failure) {
            setError(failure instanceof ApiError && failure.status === 401 ? 'That is not the admin key.' : String((failure as Error).message));
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>collab-host console</h1>
        <p class="muted">Sign in with the service's ADMIN_API_KEY. The key is exchanged for a session cookie and not kept by this page.</p>
        <label>
          <span>Admin key</span>
          <input type="password" autocomplete="current-password" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} required />
        </label>
        {error !== null && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const { page, params } = useHashRoute();
  const setParams = (next: Record<string, string>) => {
    const search = new URLSearchParams(next).toString();
    history.replaceState(null, '', `#/${page}${search === '' ? '' : `?${search}`}`);
  };
  return (
    <div class="shell">
      <nav>
        <div class="brand">collab-host</div>
        {PAGES.map((p) => (
          <a key={p.path} href={`#/${p.path}`} class={p.path === page ? 'active' : ''} aria-current={p.path === page ? 'page' : undefined}>
            {p.title}
          </a>
        ))}
        <div class="session muted">session until {session.expiresAt.replace('T', ' ').replace('Z', ' UTC')}</div>
        <button
          type="button"
          class="quiet"
          onClick={async () => {
            await signOut().catch(() => undefined);
            onSignedOut();
          }}
        >
          Sign out
        </button>
      </nav>
      <main>
        {page === 'overview' && <Overview />}
        {page === 'directory' && <Directory />}
        {page === 'explain' && <Explain params={params} setParams={setParams} />}
        {page === 'events' && <Events />}
        {page === 'notifications' && <Notifications />}
        {page === 'channels' && <Channels />}
        {page === 'reminders' && <Reminders />}
        {page === 'sync' && <SyncSeats />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
