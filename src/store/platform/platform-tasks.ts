import type { Selectable } from 'kysely';
import type { Db } from '../schema/schema.js';
import type { PlatformTables } from '../schema/tables/platform.js';

export type PlatformTaskRow = Selectable<PlatformTables['platform_tasks']>;

/** Import and export tasks started through collab-host (table `platform_tasks`). */
export interface PlatformTaskStore {
  /** Records a task the platform just accepted. */
  insert(task: { kind: 'import' | 'export'; taskId: string; fileId: string; userId: string; version: number; format: string | null; nowIso: string }): Promise<void>;
  /** The task, or undefined. */
  get(kind: 'import' | 'export', taskId: string): Promise<PlatformTaskRow | undefined>;
  /** Records its progress, outcome and result file. */
  update(
    kind: 'import' | 'export',
    taskId: string,
    patch: { status?: 'running' | 'done' | 'failed'; progress?: number; resultFileId?: string; message?: string; nowIso: string },
  ): Promise<void>;
}

export function sqlPlatformTasks(db: Db): PlatformTaskStore {
  return {
    async insert(task) {
      await db
        .insertInto('platform_tasks')
        .values({
          kind: task.kind,
          task_id: task.taskId,
          file_id: task.fileId,
          user_id: task.userId,
          version: task.version,
          format: task.format,
          status: 'running',
          progress: 0,
          result_file_id: null,
          message: null,
          created_at: task.nowIso,
          updated_at: task.nowIso,
        })
        .execute();
    },
    get(kind, taskId) {
      return db.selectFrom('platform_tasks').selectAll().where('kind', '=', kind).where('task_id', '=', taskId).executeTakeFirst();
    },
    async update(kind, taskId, patch) {
      await db
        .updateTable('platform_tasks')
        .set({
          updated_at: patch.nowIso,
          ...(patch.status === undefined ? {} : { status: patch.status }),
          ...(patch.progress === undefined ? {} : { progress: patch.progress }),
          ...(patch.resultFileId === undefined ? {} : { result_file_id: patch.resultFileId }),
          ...(patch.message === undefined ? {} : { message: patch.message }),
        })
        .where('kind', '=', kind)
        .where('task_id', '=', taskId)
        .execute();
    },
  };
}
