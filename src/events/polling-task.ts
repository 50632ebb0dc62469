import { yieldToEventLoop } from '../shared/event-loop.js';

/** The part of a logger the background tasks use (pino's shape: object first). */
export interface TaskLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export const SILENT_LOG: TaskLog = { info() {}, warn() {}, error() {} };

/**
 * Runs `tick` again and again: immediately while it reports more work, otherwise after `intervalMs` or
 * when woken. `stop` waits for the tick in progress, so nothing is cut off half way.
 */
export class PollingTask {
  private running: Promise<void> | undefined;
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  /** A wake that came while a tick was running: the next tick follows at once. */
  private woken = false;

  constructor(
    readonly name: string,
    private readonly tick: () => Promise<boolean>,
    private readonly intervalMs: number,
    private readonly log: TaskLog,
  ) {}

  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /** Runs the next tick now instead of at the end of the interval. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let more = false;
      try {
        more = await this.tick();
      } catch (error) {
        this.log.error({ err: error, task: this.name }, 'background task failed; retrying');
      }
      if (more || this.stopped || this.woken) {
        this.woken = false;
        // A backlog is worked through in steps with the event loop's other work in between (requests,
        // timers): a store whose driver never waits on I/O (SQLite) would otherwise keep it to itself.
        await yieldToEventLoop();
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.intervalMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }
}

/**
 * A background worker whose work comes in steps (`runOnce`, returning how many items it handled): run
 * again at once while a step was full, else after `pollMs` or when woken. The event processor, the outbox
 * worker and the reminder scheduler are such workers.
 */
export abstract class PollingWorker {
  private task: PollingTask | undefined;

  constructor(
    readonly name: string,
    private readonly polling: { pollMs: number; batchSize: number; log: TaskLog },
  ) {}

  /** One step of work; returns how many items it handled. */
  abstract runOnce(): Promise<number>;

  start(): this {
    this.task ??= new PollingTask(this.name, async () => (await this.runOnce()) >= this.polling.batchSize, this.polling.pollMs, this.polling.log).start();
    return this;
  }

  /** Runs the next step now instead of at the next poll. */
  wake(): void {
    this.task?.wake();
  }

  /** Waits for the step in progress, then stops. */
  async stop(): Promise<void> {
    await this.task?.stop();
  }
}
