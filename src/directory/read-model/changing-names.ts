import type { SearchKeyword } from '../search-keyword.js';
import { NameIndex, type IndexedName } from './name-index.js';

/** Changes kept beside a built index before it is built again: at least this many, or an eighth of it. */
const CHANGES_KEPT = 512;

/**
 * A name index over a set that changes (a team's people or departments, the files): built on first
 * use, then the ids written since are kept aside and checked one by one (so a write costs nothing
 * here), and the index is built again once they are many.
 */
export class ChangingNames {
  private index: NameIndex | undefined;
  private readonly changed = new Set<string>();

  constructor(private readonly entries: () => IndexedName[]) {}

  /** The candidate `id` changed (added, renamed, moved, removed). */
  touch(id: string): void {
    if (!this.index) return;
    this.changed.add(id);
    if (this.changed.size > Math.max(CHANGES_KEPT, this.index.size / 8)) this.forget();
  }

  /** Builds the index now (after a load), so no search pays for it. */
  prepare(): void {
    this.index ??= NameIndex.build(this.entries());
  }

  forget(): void {
    this.index = undefined;
    this.changed.clear();
  }

  /** How many candidates `candidates` would give without a bound (cheap: no id is read). */
  candidateCount(keyword: SearchKeyword): number {
    this.index ??= NameIndex.build(this.entries());
    return this.index.candidates(keyword).length + this.changed.size;
  }

  /**
   * Ids that may match the non-empty keyword: at most `scan` index matches (`truncated` when it had
   * more), then every id changed since the index was built. Each id once; the caller checks each.
   */
  candidates(keyword: SearchKeyword, scan: number): { ids: string[]; truncated: boolean } {
    this.index ??= NameIndex.build(this.entries());
    const index = this.index;
    const entries = index.candidates(keyword);
    const ids: string[] = [];
    const end = Math.min(entries.length, scan);
    for (let position = 0; position < end; position += 1) {
      const id = index.ids[entries[position]!]!;
      if (!this.changed.has(id)) ids.push(id);
    }
    for (const id of this.changed) ids.push(id);
    return { ids, truncated: entries.length > scan };
  }
}
