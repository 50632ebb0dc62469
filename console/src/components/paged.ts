import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get, type Listing } from '../api.js';

/** A listing read page by page (`{ items, nextCursor }`): the first page when `path` changes, more on `more()`. */
export interface Paged<T> {
  items: T[];
  /** True once the first page has arrived. */
  loaded: boolean;
  hasMore: boolean;
  error: string | null;
  more: () => void;
  reload: () => void;
}

export function usePaged<T>(path: string, pageSize = 50): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  // A page of an older path or round that arrives late is dropped.
  const latest = useRef(0);

  const load = useCallback(
    async (cursor: string | null, mine: number) => {
      setError(null);
      const separator = path.includes('?') ? '&' : '?';
      try {
        const page = await get<Listing<T>>(`${path}${separator}limit=${pageSize}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        if (mine !== latest.current) return;
        setItems((previous) => (cursor === null ? page.items : [...previous, ...page.items]));
        setNext(page.nextCursor);
        setLoaded(true);
      } catch (failure) {
        if (mine === latest.current) setError((failure as Error).message);
      }
    },
    [path, pageSize],
  );

  useEffect(() => {
    const mine = ++latest.current;
    setItems([]);
    setNext(null);
    setLoaded(false);
    void load(null, mine);
  }, [load, round]);

  return {
    items,
    loaded,
    hasMore: next !== null,
    error,
    more: () => void load(next, latest.current),
    reload: () => setRound((n) => n + 1),
  };
}
