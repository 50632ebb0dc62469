import { useEffect, useState } from 'preact/hooks';
import { get, query } from '../api.js';
import { Badge, LoadState, Panel, useLoad } from '../components/common.js';
import { Grants, PathText } from '../components/grants.js';
import { Picker } from '../components/picker.js';
import type { AccessExplanation, FileItem, NamedNode, UserItem } from '../types.js';

const DESCRIPTIONS: Record<string, string> = {
  readable: 'open and read',
  commentable: 'comment',
  editable: 'edit',
  copyable: 'copy content out',
  exportable: 'export and download',
  manageable: 'manage sharing',
};

const RESTRICTION_TEXT = {
  'restrictions.copy': 'restrictions.copy is false: only those who may edit may copy',
  'restrictions.export': 'restrictions.export is false: only managers may export',
};

/** Pick a user and a file: the six permissions, the grant path behind each and the restriction that removes it. */
export function Explain({ params, setParams }: { params: URLSearchParams; setParams: (next: Record<string, string>) => void }) {
  const [user, setUser] = useState<NamedNode | null>(params.get('user') ? { id: params.get('user')!, name: params.get('user')! } : null);
  const [file, setFile] = useState<NamedNode | null>(params.get('file') ? { id: params.get('file')!, name: params.get('file')! } : null);
  useEffect(() => {
    const next: Record<string, string> = {};
    if (user) next.user = user.id;
    if (file) next.file = file.id;
    setParams(next);
  }, [user?.id, file?.id]);
  const explanation = useLoad(
    () => (user && file ? get<AccessExplanation>(`/api/access${query({ userId: user.id, fileId: file.id })}`) : Promise.resolve(undefined)),
    [user?.id, file?.id],
  );
  const found = explanation.data;
  return (
    <div class="page">
      <h1>Explain access</h1>
      <Panel title="Who and what">
        <div class="pickers">
          <Picker<UserItem>
            label="User"
            kind="users"
            selected={found && user ? { ...(user as UserItem), name: found.userName } : (user as UserItem | null)}
            onSelect={setUser}
            describe={(item) => (item.departments ? item.departments.map((d) => d.name).join('、') : '')}
          />
          <Picker<FileItem>
            label="File"
            kind="files"
            selected={found && file ? { ...(file as FileItem), name: found.fileName } : (file as FileItem | null)}
            onSelect={setFile}
            describe={(item) => item.type ?? ''}
          />
        </div>
      </Panel>
      {user && file ? <LoadState loaded={explanation}>{() => (found ? <Explanation found={found} /> : null)}</LoadState> : <p class="muted">Pick a user and a file.</p>}
    </div>
  );
}

function Explanation({ found }: { found: AccessExplanation }) {
  return (
    <Panel title={`${found.userName} on ${found.fileName}`}>
      <p>
        Role that counts: {found.role === null ? <Badge tone="bad">none</Badge> : <Badge tone="good">{found.role}</Badge>}{' '}
        <span class="muted">(the strongest of the paths below; the creator is always manager)</span>
      </p>
      {found.notes.map((note) => (
        <p key={note} class="not-yet">
          {note}
        </p>
      ))}
      <table class="permissions">
        <thead>
          <tr>
            <th>permission</th>
            <th />
            <th>given by</th>
            <th>removed by</th>
          </tr>
        </thead>
        <tbody>
          {found.explanations.map((entry) => (
            <tr key={entry.permission} data-permission={entry.permission}>
              <td>
                <strong>{entry.permission}</strong>
                <div class="muted">{DESCRIPTIONS[entry.permission]}</div>
              </td>
              <td>{entry.granted ? <Badge tone="good">yes</Badge> : <Badge tone="bad">no</Badge>}</td>
              <td>
                {entry.givenBy.length === 0 ? (
                  <span class="muted">{entry.removedBy ? '—' : 'no grant reaches this user for it'}</span>
                ) : (
                  <ul class="paths">
                    {entry.givenBy.map((path, index) => (
                      <li key={index}>
                        <PathText path={path} />
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td>{entry.removedBy ? <span class="removed">{RESTRICTION_TEXT[entry.removedBy]}</span> : <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Grants on this file that do not reach {found.userName}</h3>
      <Grants sharing={found.otherGrants} />
    </Panel>
  );
}
