import type { FileRecord } from '../types.js';

type TimeColumn = 'updatedAt' | 'createdAt';

/** Files written since the order was sorted, kept beside it before it is merged again. */
const CHANGES_KEPT = 2_000;

/**
 * The active files newest first by one time column, ties by id (descending), as GET /files lists them:
 * sorted on first use; then the files written since (a FileContent event moves `updatedAt` on every
 * edit) are kept aside, in order, and merged in while walking, so a walk costs the files it visits
 * whatever was written; once they are many they are merged into the order (a pass over it, no sort).
 */
export class NewestFiles {
  private base: string[] | undefined;
  /** Per id written since `base` was sorted: its record as placed in `extra`, or null (not active). */
  private readonly changed = new Map<string, FileRecord | null>();
  /** The active files written since, in order, each as it was when written (records are replaced, never changed). */
  private extra: FileRecord[] = [];

  constructor(
    private readonly files: ReadonlyMap<string, FileRecord>,
    private readonly column: TimeColumn,
  ) {}

  /** The file `id` was written (its time or status changed, or it came or went): its record is in `files` now. */
  touch(id: string): void {
    if (!this.base) return;
    const placed = this.changed.get(id);
    if (placed) this.extra.splice(this.placeOf(placed), 1);
    const file = this.files.get(id);
    const active = file?.status === 'active' ? file : null;
    this.changed.set(id, active);
    if (active) this.extra.splice(this.placeOf(active), 0, active);
    if (this.changed.size > CHANGES_KEPT) this.merge();
  }

  /** Sorts now (after a load), so no request pays for it. */
  prepare(): void {
    this.base ??= this.sorted(this.files.values());
  }

  forget(): void {
    this.base = undefined;
    this.changed.clear();
    this.extra = [];
  }

  /** Visits the active files in order until `visit` returns false. */
  walk(visit: (file: FileRecord) => boolean): void {
    this.prepare();
    const base = this.base!;
    const extra = this.extra;
    let i = 0;
    let j = 0;
    for (;;) {
      while (i < base.length && this.changed.has(base[i]!)) i += 1;
      const a = i < base.length ? this.files.get(base[i]!) : undefined;
      const b = extra[j];
      if (!a && !b) return;
      if (a && (!b || this.compare(a, b) <= 0)) {
        i += 1;
        if (!visit(a)) return;
      } else {
        j += 1;
        // The record now: a rename since (no change of time) is not in `extra`'s copy.
        if (!visit(this.files.get(b!.id)!)) return;
      }
    }
  }

  /** Merges the files written since into the order: each put in place by a binary search, no sort. */
  private merge(): void {
    const kept = this.base!.filter((id) => !this.changed.has(id));
    const merged = new Array<string>(kept.length + this.extra.length);
    let from = 0;
    let to = 0;
    for (const file of this.extra) {
      let low = from;
      let high = kept.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (this.compare(this.files.get(kept[middle]!)!, file) < 0) low = middle + 1;
        else high = middle;
      }
      while (from < low) merged[to++] = kept[from++]!;
      merged[to++] = file.id;
    }
    while (from < kept.length) merged[to++] = kept[from++]!;
    this.base = merged;
    this.changed.clear();
    this.extra = [];
  }

  /** Where `file` is in `extra`, or would go (the first place not before it). */
  private placeOf(file: FileRecord): number {
    let low = 0;
    let high = this.extra.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.compare(this.extra[middle]!, file) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private sorted(files: Iterable<FileRecord>): string[] {
    const active: Array<{ at: string; id: string }> = [];
    for (const file of files) if (file.status === 'active') active.push({ at: file[this.column], id: file.id });
    return active.sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id === b.id ? 0 : a.id < b.id ? 1 : -1)).map((file) => file.id);
  }

  /** Negative when `a` comes first. */
  private compare(a: FileRecord, b: FileRecord): number {
    const x = a[this.column];
    const y = b[this.column];
    if (x !== y) return x < y ? 1 : -1;
    return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
  }
}
