import { useState } from 'preact/hooks';
import { get, query } from '../api.js';
import type { NamedNode, SearchResult } from '../types.js';
import { useDebounced, useLoad } from './common.js';

/**
 * A search box over /api/directory/search/{users|files} (pinyin and initials work) that picks one item.
 * `label` names it for people and tests.
 */
export function Picker<T extends NamedNode>({
  label,
  kind,
  selected,
  onSelect,
  describe,
}: {
  label: string;
  kind: 'users' | 'files';
  selected: T | null;
  onSelect: (item: T) => void;
  describe: (item: T) => string;
}) {
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const keyword = useDebounced(text);
  const found = useLoad(() => (open ? get<SearchResult<T>>(`/api/directory/search/${kind}${query({ keyword, limit: '8' })}`) : Promise.resolve(undefined)), [kind, keyword, open]);
  return (
    <div class="picker">
      <label>
        <span>{label}</span>
        <input
          type="search"
          value={text}
          // The pick is shown below in full colour, not as a grey placeholder that reads as "nothing chosen".
          placeholder={selected ? 'search to pick another' : 'name, pinyin or initials'}
          onInput={(event) => {
            setText((event.target as HTMLInputElement).value);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
        />
      </label>
      {selected && (
        <div class="picked">
          <strong>{selected.name}</strong> <code>{selected.id}</code> <span class="muted">{describe(selected)}</span>
        </div>
      )}
      {open && found.data && (
        <ul class="suggestions" role="listbox" aria-label={`${label} suggestions`}>
          {found.data.items.length === 0 && <li class="muted">no match</li>}
          {found.data.items.map((item) => (
            <li key={item.id}>
              <button
                type="button"
                role="option"
                onClick={() => {
                  onSelect(item);
                  setText('');
                  setOpen(false);
                }}
              >
                <strong>{item.name}</strong> <code>{item.id}</code> <span class="muted">{describe(item)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
