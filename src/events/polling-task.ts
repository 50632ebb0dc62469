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
