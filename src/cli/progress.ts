/** Where progress goes: a stream, and whether it is a terminal (then one line is redrawn in place). */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  /** What is counted: `rows`, or `bytes` (shown in kB, MB, GB). */
  unit: 'rows' | 'bytes';
  /** What the command does, for the lines ("importing", "migrating"). */
  label: string;
  /** --quiet: nothing at all. */
  quiet?: boolean;
  /** The clock (tests). */
  now?: () => number;
  /** Least time between two redraws on a terminal (ms). */
  redrawMs?: number;
}

/**
 * Progress of a long command: on a terminal, one line redrawn in place at most every `redrawMs` with the
 * phase, what is done of the total, the rate and the time left; elsewhere (a log, a pipe) nothing while it
 * runs and one summary line at the end. `--quiet` silences both.
 */
export class Progress {
  private readonly now: () => number;
  private readonly started: number;
  private phase = '';
  private done = 0;
  private total: number | undefined;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(
    private readonly output: ProgressOutput,
    private readonly options: ProgressOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  /** A new phase ("checking", "writing rows", "building indexes"); `total` when what it counts is known. */
  step(phase: string, total?: number): void {
    this.phase = phase;
    if (total !== undefined) this.total = total;
    this.draw(true);
  }

  /** `count` more units done. */
  advance(count: number): void {
    this.done += count;
    this.draw(false);
  }

  /** The summary: on a terminal it replaces the progress line; elsewhere it is the only line. */
  finish(outcome = 'done'): void {
    if (this.options.quiet) return;
    const seconds = (this.now() - this.started) / 1000;
    const rate = seconds > 0 ? ` (${this.amount(this.done / seconds)}/s)` : '';
    const line = `${this.options.label}: ${outcome}, ${this.amount(this.done)} in ${seconds.toFixed(1)} s${rate}`;
    this.output.write(this.output.isTTY && this.drawn ? `\r\u001b[2K${line}\n` : `${line}\n`);
  }

  /** Ends without a summary (the command says why it stopped): on a terminal the progress line is erased. */
  abandon(): void {
    if (!this.options.quiet && this.output.isTTY && this.drawn) this.output.write('\r\u001b[2K');
    this.drawn = false;
  }

  private draw(force: boolean): void {
    if (this.options.quiet || !this.output.isTTY) return;
    const at = this.now();
    if (!force && at - this.lastDraw < (this.options.redrawMs ?? 200)) return;
    this.lastDraw = at;
    this.drawn = true;
    this.output.write(`\r\u001b[2K${this.line(at)}`);
  }

  /** `importing: writing rows 120,000 rows / 1,310,661 rows (9%), 24,000 rows/s, 50 s left` */
  private line(at: number): string {
    const seconds = (at - this.started) / 1000;
    const figures: string[] = [];
    if (this.done > 0 || this.total !== undefined) {
      const of = this.total === undefined ? '' : ` / ${this.amount(this.total)} (${Math.floor((100 * this.done) / Math.max(1, this.total))}%)`;
      figures.push(`${this.amount(this.done)}${of}`);
    }
    if (this.done > 0 && seconds > 0) {
      const rate = this.done / seconds;
      figures.push(`${this.amount(rate)}/s`);
      if (this.total !== undefined && this.total > this.done) figures.push(`${Math.ceil((this.total - this.done) / rate)} s left`);
    }
    const head = `${this.options.label}: ${this.phase}`;
    return figures.length === 0 ? head : `${head}, ${figures.join(', ')}`;
  }

  private amount(value: number): string {
    if (this.options.unit === 'rows') return `${Math.round(value).toLocaleString('en-US')} rows`;
    const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
    let scaled = value;
    let unit = 0;
    while (scaled >= 1000 && unit < units.length - 1) {
      scaled /= 1000;
      unit += 1;
    }
    return unit === 0 ? `${Math.round(scaled)} bytes` : `${scaled.toFixed(1)} ${units[unit]}`;
  }
}
