import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { get, query } from '../api.js';
import { Badge, LoadState, Panel, useDebounced, useLoad } from '../components/common.js';
import { Grants } from '../components/grants.js';
import { RecordEditor, type EditableField } from '../components/record-editor.js';
import { ShareLinks } from '../components/share-links.js';
import { forgetName, UserName } from '../components/user-name.js';
import type { DepartmentItem, DirectorySummary, FileItem, NamedNode, SearchResult, UserItem } from '../types.js';

type Tab = 'users' | 'departments' | 'files' | 'teams';
const TABS: Tab[] = ['users', 'departments', 'files', 'teams'];

/** Teams, the department tree, and a search over users, departments, files and teams (pinyin works). */
export function Directory() {
  const summary = useLoad(() => get<DirectorySummary>('/api/directory/summary'), []);
  const [tab, setTab] = useState<Tab>('users');
  const [text, setText] = useState('');
  const [editing, setEditing] = useState<{ tab: Tab; item: NamedNode } | null>(null);
  const [sharing, setSharing] = useState<NamedNode | null>(null);
  const keyword = useDebounced(text);
  // The answer keeps the tab it was asked for: while another tab loads, the old rows keep their own shape.
  const found = useLoad(async () => ({ tab, result: await get<SearchResult<NamedNode>>(`/api/directory/search/${tab}${query({ keyword, limit: '100' })}`) }), [tab, keyword]);
  return (
    <div class="page">
      <h1>Directory</h1>
      {editing !== null && (
        <RecordEditor
          key={`${editing.tab}/${editing.item.id}`}
          path={`/api/${editing.tab}/${encodeURIComponent(editing.item.id)}`}
          label={`${LABELS[editing.tab]} ${editing.item.name}`}
          fields={EDITABLE[editing.tab]}
          onSaved={() => {
            if (editing.tab === 'users') forgetName(editing.item.id);
            found.reload();
            summary.reload();
          }}
          onClose={() => setEditing(null)}
        />
      )}
      {sharing !== null && <ShareLinks key={sharing.id} fileId={sharing.id} fileName={sharing.name} onClose={() => setSharing(null)} />}
      <div class="columns">
        <Panel title="Department tree">
          <LoadState loaded={summary}>{() => <Tree summary={summary.data!} />}</LoadState>
        </Panel>
        <Panel title="Search">
          <div class="tabs" role="tablist">
            {TABS.map((name) => (
              <button key={name} type="button" role="tab" aria-selected={tab === name} class={tab === name ? 'active' : ''} onClick={() => setTab(name)}>
                {name}
              </button>
            ))}
          </div>
          <input
            type="search"
            aria-label="Search the directory"
            placeholder="name, e-mail, pinyin or initials (zs finds 张三)"
            value={text}
            onInput={(event) => setText((event.target as HTMLInputElement).value)}
          />
          <LoadState loaded={found}>
            {() => {
              const { result } = found.data!;
              return (
                <>
                  <p class="muted">
                    {result.count} match{result.count === 1 ? '' : 'es'}
                    {result.items.length < result.count ? `, the best ${result.items.length} shown` : ''}
                    {result.truncated ? ' (only the first candidates by name were ranked: type more)' : ''}
                  </p>
                  <Results tab={found.data!.tab} items={result.items} onEdit={(item) => setEditing({ tab: found.data!.tab, item })} onShareLinks={setSharing} />
                </>
              );
            }}
          </LoadState>
        </Panel>
      </div>
    </div>
  );
}

/** One column of a results table. */
interface Column<T> {
  title: string;
  cell: (item: T) => ComponentChildren;
}

function Table<T extends NamedNode>({ items, columns }: { items: T[]; columns: Array<Column<T>> }) {
  return (
    <table class="results">
      <thead>
        <tr>
          {columns.map((column, index) => (
            <th key={index}>{column.title}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.id}>
            {columns.map((column, index) => (
              <td key={index}>{column.cell(item)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const idColumn = <T extends NamedNode>(): Column<T> => ({ title: 'id', cell: (item) => <code>{item.id}</code> });
const explainLink = <T extends NamedNode>(param: 'user' | 'file'): Column<T> => ({
  title: '',
  cell: (item) => <a href={`#/explain?${param}=${encodeURIComponent(item.id)}`}>explain access</a>,
});

const USER_COLUMNS: Array<Column<UserItem>> = [
  {
    title: 'name',
    cell: (user) => (
      <>
        {user.name} {!user.active && <Badge tone="warn">deactivated</Badge>}
      </>
    ),
  },
  idColumn(),
  { title: 'e-mail', cell: (user) => user.email ?? '' },
  { title: 'departments', cell: (user) => user.departments.map((d) => d.name).join('、') },
  explainLink('user'),
];
const FILE_COLUMNS: Array<Column<FileItem>> = [
  {
    title: 'name',
    cell: (file) => (
      <>
        {file.name} {file.status !== 'active' && <Badge tone="warn">{file.status}</Badge>}
      </>
    ),
  },
  idColumn(),
  { title: 'type', cell: (file) => file.type },
  { title: 'creator', cell: (file) => <UserName id={file.creatorId} /> },
  { title: 'grants', cell: (file) => <Grants sharing={file.sharing} /> },
  { title: 'restrictions', cell: (file) => [!file.restrictions.copy && 'no copy', !file.restrictions.export && 'no export'].filter(Boolean).join(', ') || '—' },
  explainLink('file'),
];
const DEPARTMENT_COLUMNS: Array<Column<DepartmentItem>> = [
  { title: 'name', cell: (department) => department.name },
  idColumn(),
  { title: 'team', cell: (department) => <code>{department.teamId}</code> },
  { title: 'parent', cell: (department) => (department.parentId === null ? '—' : <code>{department.parentId}</code>) },
];
const TEAM_COLUMNS: Array<Column<NamedNode>> = [{ title: 'name', cell: (team) => team.name }, idColumn()];

/** What the console edits of each record (the rest is sent back as read), and the record's name. */
const EDITABLE: Record<Tab, EditableField[]> = {
  users: [
    { key: 'name', label: 'name', kind: 'text' },
    { key: 'email', label: 'e-mail', kind: 'text', optional: true },
    { key: 'active', label: 'active', kind: 'boolean' },
  ],
  departments: [{ key: 'name', label: 'name', kind: 'text' }],
  files: [{ key: 'name', label: 'name', kind: 'text' }],
  teams: [{ key: 'name', label: 'name', kind: 'text' }],
};
const LABELS: Record<Tab, string> = { users: 'user', departments: 'department', files: 'file', teams: 'team' };

const editColumn = <T extends NamedNode>(onEdit: (item: NamedNode) => void): Column<T> => ({
  title: '',
  cell: (item) => (
    <button type="button" class="quiet" aria-label={`Edit ${item.name}`} onClick={() => onEdit(item)}>
      edit
    </button>
  ),
});

const shareLinksColumn = (onShareLinks: (item: NamedNode) => void): Column<FileItem> => ({
  title: '',
  cell: (file) => (
    <button type="button" class="quiet" aria-label={`Share links of ${file.name}`} onClick={() => onShareLinks(file)}>
      links
    </button>
  ),
});

function Results({ tab, items, onEdit, onShareLinks }: { tab: Tab; items: NamedNode[]; onEdit: (item: NamedNode) => void; onShareLinks: (item: NamedNode) => void }) {
  if (tab === 'users') return <Table items={items as UserItem[]} columns={[...USER_COLUMNS, editColumn(onEdit)]} />;
  if (tab === 'files') return <Table items={items as FileItem[]} columns={[...FILE_COLUMNS, editColumn(onEdit), shareLinksColumn(onShareLinks)]} />;
  if (tab === 'departments') return <Table items={items as DepartmentItem[]} columns={[...DEPARTMENT_COLUMNS, editColumn(onEdit)]} />;
  return <Table items={items} columns={[...TEAM_COLUMNS, editColumn(onEdit)]} />;
}

function Tree({ summary }: { summary: DirectorySummary }) {
  const children = new Map<string, DirectorySummary['departments']>();
  for (const department of summary.departments) {
    const key = department.parentId ?? `team:${department.teamId}`;
    children.set(key, [...(children.get(key) ?? []), department]);
  }
  const branch = (key: string) => {
    const nodes = children.get(key) ?? [];
    if (nodes.length === 0) return null;
    return (
      <ul class="tree">
        {nodes.map((department) => (
          <li key={department.id}>
            <span class="node">{department.name}</span> <code>{department.id}</code> <span class="muted">{department.memberCount}</span>
            {branch(department.id)}
          </li>
        ))}
      </ul>
    );
  };
  return (
    <div>
      {summary.teams.map((team) => (
        <div key={team.id} class="team">
          <strong>{team.name}</strong> <code>{team.id}</code> <span class="muted">{team.memberCount} members</span>
          {branch(`team:${team.id}`)}
        </div>
      ))}
      {summary.departmentsTruncated && <p class="muted">The first {summary.departments.length} departments by name are shown.</p>}
    </div>
  );
}
