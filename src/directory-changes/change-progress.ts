/** Where a long directory change reports how far it got (a command's progress line). Imports nothing. */
export interface ChangeProgress {
  /** A new phase; `total` when it counts rows and their number is known. */
  step(phase: string, total?: number): void;
  /** `rows` more rows written. */
  advance(rows: number): void;
}
