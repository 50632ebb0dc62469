import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.js';

/** Names already asked for, by user id: a page of files by one creator asks once. */
const names = new Map<string, Promise<string | null>>();

function nameOf(id: string): Promise<string | null> {
  let known = names.get(id);
  if (!known) {
    known = get<{ name: string }>(`/api/users/${encodeURIComponent(id)}`).then(
      (user) => user.name,
      () => null,
    );
    names.set(id, known);
  }
  return known;
}

/** Forgets a user's name (the console just renamed them): the next UserName asks again. */
export function forgetName(id: string): void {
  names.delete(id);
}

/** A user shown by name, the id beside it (just the id while loading, or when the directory has no such user). */
export function UserName({ id }: { id: string | null }) {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    if (id !== null) void nameOf(id).then((found) => current && setName(found));
    return () => {
      current = false;
    };
  }, [id]);
  if (id === null) return <span class="muted">—</span>;
  return (
    <span class="nowrap">
      {name ?? ''} <code class="muted">{id}</code>
    </span>
  );
}
