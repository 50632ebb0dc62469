import { backoffDelay } from '../events/outbox-worker.js';
import { PollingTask, SILENT_LOG, type TaskLog } from '../events/polling-task.js';
import type { PlatformClient } from './platform-client.js';
import type { SeatAction, SeatTaskQueue } from './seat-tasks.js';

export interface SeatTaskWorkerOptions {
  /** Tasks claimed per round; one platform call per action carries all of their user ids. */
  batchSize?: number;
  pollMs?: number;
  /** First retry delay; doubles per attempt up to `maxDelayMs`, with jitter. A task is retried until done. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  log?: TaskLog;
  now?: () => number;
  random?: () => number;
}

export const SEAT_TASK_DEFAULTS = { batchSize: 100, pollMs: 5_000, baseDelayMs: 5_000, maxDelayMs: 60 * 60_000 };

/**
 * Sends queued seat tasks to the platform: claims due tasks, calls `deactivate` and `activate` once each
 * with the claimed users, and marks them done; a failed call puts its tasks back with backoff, for ever
 * (a seat must end up right), and says why in the listing.
 */
export class SeatTaskWorker {
  readonly name = 'seat-task-worker';
  private readonly task: PollingTask;
  private readonly options: Required<SeatTaskWorkerOptions>;

  constructor(
    private readonly queue: SeatTaskQueue,
    private readonly platform: Pick<PlatformClient, 'activateSeats' | 'deactivateSeats'>,
    options: SeatTaskWorkerOptions = {},
  ) {
    this.options = { ...SEAT_TASK_DEFAULTS, log: SILENT_LOG, now: Date.now, random: Math.random, ...options };
    this.task = new PollingTask(this.name, () => this.runOnce().then((count) => count === this.options.batchSize), this.options.pollMs, this.options.log);
  }

  start(): this {
    this.task.start();
    return this;
  }

  wake(): void {
    this.task.wake();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Claims one batch and sends it; returns how many tasks were attempted. */
  async runOnce(): Promise<number> {
    const { claimToken, tasks } = await this.queue.claim({ limit: this.options.batchSize, leaseMs: 2 * 60_000, nowMs: this.options.now() });
    for (const action of ['deactivate', 'activate'] as const satisfies readonly SeatAction[]) {
      const batch = tasks.filter((task) => task.action === action);
      if (batch.length === 0) continue;
      const userIds = batch.map((task) => task.userId);
      const ids = batch.map((task) => task.id);
      try {
        await (action === 'activate' ? this.platform.activateSeats(userIds) : this.platform.deactivateSeats(userIds));
        await this.queue.finish(claimToken, ids, this.options.now());
        this.options.log.info({ action, users: userIds.length }, 'seat tasks sent');
      } catch (error) {
        const attempt = Math.max(...batch.map((task) => task.attempt));
        const delay = backoffDelay(attempt, this.options.baseDelayMs, this.options.maxDelayMs, this.options.random);
        const reason = error instanceof Error ? error.message : String(error);
        await this.queue.retry(claimToken, ids, this.options.now() + delay, reason);
        this.options.log.warn({ action, users: userIds.length, attempt, retryInMs: delay, err: reason }, 'seat tasks failed; will retry');
      }
    }
    return tasks.length;
  }
}
