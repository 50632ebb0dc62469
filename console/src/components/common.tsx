import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** The state of something loaded from the API. */
export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads when `deps` change (the latest load wins), and again on `reload()`. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const mine = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => mine === latest.current && setState({ data, loading: false }),
      (error: unknown) => mine === latest.current && setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false }),
    );
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The value after it has stopped changing for `ms` (search boxes). */
export function useDebounced<T>(value: T, ms = 200): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function Panel({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="panel">
      <header class="panel-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function LoadState({ loaded, children }: { loaded: Loaded<unknown>; children: () => ComponentChildren }) {
  if (loaded.error) return <p class="error">{loaded.error.message}</p>;
  if (loaded.data === undefined) return <p class="muted">Loading…</p>;
  return <>{children()}</>;
}

export function Badge({ tone, children }: { tone: 'good' | 'bad' | 'warn' | 'plain'; children: ComponentChildren }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

export function Stat({ label, value, detail }: { label: string; value: ComponentChildren; detail?: ComponentChildren }) {
  return (
    <div class="stat">
      <div class="stat-value">{value}</div>
      <div class="stat-label">{label}</div>
      {detail !== undefined && <div class="stat-detail">{detail}</div>}
    </div>
  );
}

/** `2024-03-01T08:00:00Z` as `2024-03-01 08:00:00 UTC`. */
export function Time({ value }: { value: string | null }) {
  if (value === null) return <span class="muted">—</span>;
  return <time dateTime={value}>{value.replace('T', ' ').replace('Z', ' UTC')}</time>;
}

/** "in 5 min", "3 h ago". */
export function relative(value: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(value) - now) / 1000);
  const size = Math.abs(seconds);
  const text = size < 60 ? `${size} s` : size < 3600 ? `${Math.round(size / 60)} min` : size < 86400 ? `${Math.round(size / 3600)} h` : `${Math.round(size / 86400)} d`;
  return seconds >= 0 ? `in ${text}` : `${text} ago`;
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}
