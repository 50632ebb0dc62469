import type { FileRecord } from '../types.js';

type TimeColumn = 'updatedAt' | 'createdAt';

/** Changes kept beside a built order before it is sorted again. */
const CHANGES_KEPT = 2_000;

/**
 * The active files newest first by one time column, ties by id (descending), as GET /files lists them:
 * sorted on first use, then the files written since are kept aside and merged in while walking, and
 * the order is sorted again once they are many (a FileContent event moves `updatedAt` on every edit).
 */
export class NewestFiles {
  private base: string[] | undefined;
  private readonly changed = new Set<string>();

  constructor(
    private readonly files: ReadonlyMap<string, FileRecord>,
    private readonly column: TimeColumn,
  ) {}

  touch(id: string): void {
    if (!this.base) return;
    this.changed.add(id);
    if (this.changed.size > CHANGES_KEPT) this.forget();
  }

  /** Sorts now (after a load), so no request pays for it. */
  prepare(): void {
    this.base ??= this.sorted(this.files.values());
  }

  forget(): void {
    this.base = undefined;
    this.changed.clear();
  }

  /** Visits the active files in order until `visit` returns false. */
  walk(visit: (file: FileRecord) => boolean): void {
    this.base ??= this.sorted(this.files.values());
    const base = this.base;
    const extra = this.sorted([...this.changed].flatMap((id) => this.files.get(id) ?? []));
    let i = 0;
    let j = 0;
    for (;;) {
      while (i < base.length && this.changed.has(base[i]!)) i += 1;
      const a = i < base.length ? this.files.get(base[i]!) : undefined;
      const b = j < extra.length ? this.files.get(extra[j]!) : undefined;
      if (!a && !b) return;
      if (a && (!b || this.compare(a, b) <= 0)) {
        i += 1;
        if (!visit(a)) return;
      } else {
        j += 1;
        if (!visit(b!)) return;
      }
    }
  }

  private sorted(files: Iterable<FileRecord>): string[] {
    const active: Array<{ at: string; id: string }> = [];
    for (const file of files) if (file.status === 'active') active.push({ at: file[this.column], id: file.id });
    return active.sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id === b.id ? 0 : a.id < b.id ? 1 : -1)).map((file) => file.id);
  }

  private compare(a: FileRecord, b: FileRecord): number {
    const x = a[this.column];
    const y = b[this.column];
    if (x !== y) return x < y ? 1 : -1;
    return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
  }
}
