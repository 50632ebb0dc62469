import type { Db } from '../store/schema/schema.js';

export type SeatAction = 'activate' | 'deactivate';

/** What the seat worker and the directory listener need of the seat task queue; src/store/platform/seat-tasks.ts implements it. */
export interface SeatTaskQueue {
  /** Queues one task per user, due now; an older task of the same user that no worker holds is superseded. */
  enqueue(tasks: ReadonlyArray<{ userId: string; action: SeatAction }>, options: { source: string; nowMs: number }): Promise<number>;
  /** Claims due tasks (a user's oldest first) for `leaseMs`. */
  claim(options: {
    limit: number;
    leaseMs: number;
    nowMs: number;
  }): Promise<{ claimToken: string; tasks: Array<{ id: number; userId: string; action: SeatAction; attempt: number }> }>;
  /** Marks claimed tasks done. */
  finish(claimToken: string, ids: readonly number[], nowMs: number): Promise<void>;
  /** Puts claimed tasks back for a later attempt. */
  retry(claimToken: string, ids: readonly number[], nextAttemptMs: number, error: string): Promise<void>;
}

/** The part of a directory change's diff seats follow (CONTRACTS.md `DirectoryDiff`). */
export interface SeatDiff {
  /** Users that went from active to deactivated, or were removed. */
  deactivatedUsers: readonly string[];
  /** Users that went from deactivated to active. */
  reactivatedUsers: readonly string[];
}

/** The shape of CONTRACTS.md's `DirectoryChangeListener`, so this module needs nothing of src/directory-changes/. */
export type SeatDirectoryListener = (trx: Db, diff: SeatDiff, options: { source: string; dryRun?: boolean }) => Promise<void>;

/**
 * A `DirectoryChangeListener` that queues seat deactivations for `diff.deactivatedUsers` and activations
 * for `diff.reactivatedUsers`, inside the directory change's transaction (so a change that rolls back
 * queues nothing). It does nothing when PLATFORM_API_URL is not set or PLATFORM_SEAT_SYNC is false.
 * `queueFor` gives the queue over that transaction: `sqlSeatTasks` of src/store/platform/seat-tasks.ts.
 */
export function seatTasksListener(
  config: { platformApiUrl: string | undefined; platform?: { seatSync: boolean } },
  queueFor: (trx: Db) => Pick<SeatTaskQueue, 'enqueue'>,
  now: () => number = Date.now,
): SeatDirectoryListener {
  return async (trx, diff, options) => {
    if (config.platformApiUrl === undefined || config.platform?.seatSync === false || options.dryRun) return;
    const tasks = [
      ...diff.deactivatedUsers.map((userId) => ({ userId, action: 'deactivate' as const })),
      ...diff.reactivatedUsers.map((userId) => ({ userId, action: 'activate' as const })),
    ];
    if (tasks.length > 0) await queueFor(trx).enqueue(tasks, { source: options.source, nowMs: now() });
  };
}
