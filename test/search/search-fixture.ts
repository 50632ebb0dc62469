import type { Kysely } from 'kysely';
import type { Grant } from '../../src/directory/types.js';
import { replaceGrants, upsertDepartments, rebuildDepartmentClosure, upsertFiles, upsertUsers, type FileInput } from '../../src/store/directory-writes/directory-writer.js';
import type { Database } from '../../src/store/schema/schema.js';
import { FILES, seedDirectory } from '../helpers/directory-fixture.js';

/**
 * The shared company (test/helpers/directory-fixture.ts) plus rows for search, added only:
 *   users without a department in acme: Tester 01..12 (qa01..qa12@), Ann, Anna Lee, Joanne, 安娜, 关娜,
 *     欧阳娜娜, 开发者 (e-mail kaifa.lead@example.com)
 *   department 重庆分部 (acme, first level)
 *   files: 周报 01..07 by hanmeimei (updated on day 1..7); 周报 机密 by zhang, shared with nobody
 */
const person = (id: string, name: string, email = `${id}@example.com`) => ({
  id,
  name,
  email,
  avatar: null,
  teamId: 'acme',
  departmentIds: [],
  watermark: null,
});

export const TESTERS = Array.from({ length: 12 }, (_, i) => {
  const n = String(i + 1).padStart(2, '0');
  return person(`tester${n}`, `Tester ${n}`, `qa${n}@example.com`);
});

export const SEARCH_USERS = [
  ...TESTERS,
  person('ann', 'Ann'),
  person('annalee', 'Anna Lee'),
  person('jo', 'Joanne'),
  person('cn-an', '安娜'),
  person('cn-guan', '关娜'),
  person('cn-ouyang', '欧阳娜娜'),
  person('dev', '开发者', 'kaifa.lead@example.com'),
];

const report = (id: string, name: string, creatorId: string, day: number): FileInput => ({
  ...FILES[0]!,
  id,
  name,
  type: 'document',
  creatorId,
  views: null,
  updatedAt: `2024-04-0${day}T08:00:00Z`,
});

export const REPORTS = Array.from({ length: 7 }, (_, i) => report(`report${i + 1}`, `周报 0${i + 1}`, 'hanmeimei', i + 1));
export const HIDDEN_REPORT = report('report-hidden', '周报 机密', 'zhang', 9);

/** Files only their creator (or nobody in a test's viewer set) may read. */
export const UNREADABLE_FOR_HANMEIMEI = ['secret', 'contract', 'locked', 'report-hidden'];

export async function seedSearchCompany(db: Kysely<Database>): Promise<void> {
  await seedDirectory(db);
  await upsertDepartments(db, [{ id: 'cq', name: '重庆分部', teamId: 'acme', parentId: null }]);
  await rebuildDepartmentClosure(db);
  await upsertUsers(db, SEARCH_USERS);
  const files = [...REPORTS, HIDDEN_REPORT];
  await upsertFiles(db, files);
  const grants: Grant[] = [];
  await replaceGrants(
    db,
    files.map((f) => f.id),
    grants,
  );
}

/** One activity row, as the events processors write them. */
export async function addActivity(db: Kysely<Database>, row: { userId: string; kind: string; occurredAt: string; fileId?: string; relatedUserId?: string }): Promise<void> {
  await db
    .insertInto('activity')
    .values({ user_id: row.userId, kind: row.kind, occurred_at: row.occurredAt, file_id: row.fileId ?? null, related_user_id: row.relatedUserId ?? null })
    .execute();
}
