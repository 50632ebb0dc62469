import type { Kysely } from 'kysely';
import type { FileInput } from '../../src/store/directory-writes/directory-writer.js';
import { rebuildDepartmentClosure, replaceGrants, upsertDepartments, upsertFiles, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import type { Database } from '../../src/store/schema/schema.js';
import type { Grant } from '../../src/directory/types.js';

/**
 * A small company every suite can share:
 *
 *   team acme (Acme 公司)                          team other (Other Co)
 *   └─ rd 研发部                                    └─ ops 运维部: olga
 *      ├─ fe 前端组: lilei (李雷), hanmeimei (韩梅梅)
 *      │  └─ web Web 小组: wang (王小明)
 *      └─ be 后端组: zhang (张三), lilei
 *   └─ sales 销售部: alice (Alice Smith), bob (Bob Brown)
 *   acme members without department: carol
 *   outsider: no team, no department
 *
 * Files (creator, grants):
 *   plan     documentPro  zhang   user:lilei editor, department:rd viewer
 *   sheet    spreadsheet  alice   department:fe commenter, user:bob manager
 *   secret   document     zhang   (no grants)
 *   teamdoc  document     carol   team:acme viewer, restrictions copy:false export:false
 *   contract file (docx)  zhang   user:alice viewer; external downloadUrl and fullUrl
 *   locked   documentPro  alice   user:wang editor, restrictions copy:false export:false
 */
export const ACME = { id: 'acme', name: 'Acme 公司' };
export const OTHER = { id: 'other', name: 'Other Co' };

export const DEPARTMENTS = [
  { id: 'rd', name: '研发部', teamId: 'acme', parentId: null },
  { id: 'fe', name: '前端组', teamId: 'acme', parentId: 'rd' },
  { id: 'web', name: 'Web 小组', teamId: 'acme', parentId: 'fe' },
  { id: 'be', name: '后端组', teamId: 'acme', parentId: 'rd' },
  { id: 'sales', name: '销售部', teamId: 'acme', parentId: null },
  { id: 'ops', name: '运维部', teamId: 'other', parentId: null },
];

const user = (id: string, name: string, teamId: string | null, departmentIds: string[], watermark: string[] | null = null) => ({
  id,
  name,
  email: `${id}@example.com`,
  avatar: `https://avatars.example.com/${id}.png`,
  teamId,
  departmentIds,
  watermark,
});

export const USERS = [
  user('zhang', '张三', 'acme', ['be']),
  user('lilei', '李雷', 'acme', ['fe', 'be']),
  user('hanmeimei', '韩梅梅', 'acme', ['fe'], ['韩梅梅', '机密']),
  user('wang', '王小明', 'acme', ['web']),
  user('alice', 'Alice Smith', 'acme', ['sales']),
  user('bob', 'Bob Brown', 'acme', ['sales'], []),
  user('carol', 'Carol White', 'acme', []),
  user('olga', 'Olga Petrova', 'other', ['ops']),
  user('outsider', 'Outsider', null, []),
];

const OPEN = { copy: true, export: true };
const LOCKED = { copy: false, export: false };

const file = (id: string, name: string, type: string, creatorId: string, extra: Partial<FileInput> = {}): FileInput => ({
  id,
  name,
  type,
  creatorId,
  teamId: 'acme',
  createdAt: '2024-03-01T08:00:00Z',
  updatedAt: '2024-03-02T08:00:00Z',
  views: null,
  ext: null,
  downloadUrl: null,
  fullUrl: null,
  restrictions: OPEN,
  status: 'active',
  ...extra,
});

export const FILES: FileInput[] = [
  file('plan', '季度计划', 'documentPro', 'zhang', { views: 3, updatedAt: '2024-03-05T08:00:00Z' }),
  file('sheet', 'Sales Sheet 销售表', 'spreadsheet', 'alice', { updatedAt: '2024-03-04T08:00:00Z' }),
  file('secret', 'Secret Plan', 'document', 'zhang'),
  file('teamdoc', '全员手册', 'document', 'carol', { restrictions: LOCKED, updatedAt: '2024-03-03T08:00:00Z' }),
  file('contract', '合同.docx', 'file', 'zhang', {
    ext: 'docx',
    downloadUrl: 'https://files.example.com/contract',
    fullUrl: 'https://oa.example.com/contract',
  }),
  file('locked', 'Locked Doc', 'documentPro', 'alice', { restrictions: LOCKED }),
];

export const GRANTS: Grant[] = [
  { fileId: 'plan', principalKind: 'user', principalId: 'lilei', role: 'editor' },
  { fileId: 'plan', principalKind: 'department', principalId: 'rd', role: 'viewer' },
  { fileId: 'sheet', principalKind: 'department', principalId: 'fe', role: 'commenter' },
  { fileId: 'sheet', principalKind: 'user', principalId: 'bob', role: 'manager' },
  { fileId: 'teamdoc', principalKind: 'team', principalId: 'acme', role: 'viewer' },
  { fileId: 'contract', principalKind: 'user', principalId: 'alice', role: 'viewer' },
  { fileId: 'locked', principalKind: 'user', principalId: 'wang', role: 'editor' },
];

/** Writes the fixture directory through the same writers the snapshot import uses. */
export async function seedDirectory(db: Kysely<Database>): Promise<void> {
  await upsertTeams(db, [ACME, OTHER]);
  await upsertDepartments(db, DEPARTMENTS);
  await rebuildDepartmentClosure(db);
  await upsertUsers(db, USERS);
  await upsertFiles(db, FILES);
  await replaceGrants(
    db,
    FILES.map((f) => f.id),
    GRANTS,
  );
}
