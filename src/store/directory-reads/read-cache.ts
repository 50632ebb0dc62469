import { DIRECTORY_AREAS } from '../schema/directory-tracking.js';
import type { PreparedReads } from '../statements/prepared-reads.js';
import { Statement } from '../statements/statement.js';

/** The areas of the directory whose version rows the triggers of migration 070 raise. */
export type DirectoryArea = keyof typeof DIRECTORY_AREAS;

/** The version of each area, as last read. */
export type DirectoryVersion = Readonly<Record<DirectoryArea, number>>;

const VERSIONS = new Statement('SELECT id, version FROM directory_versions');
const AREA_BY_ID = new Map<number, DirectoryArea>(Object.entries(DIRECTORY_AREAS).map(([area, id]) => [id, area as DirectoryArea]));

/** Reads the version rows (one indexed read of three rows). */
export async function readDirectoryVersion(reads: PreparedReads): Promise<DirectoryVersion> {
  const version: Record<DirectoryArea, number> = { people: 0, files: 0, grants: 0 };
  for (const row of await reads.rows<{ id: number; version: number }>(VERSIONS, [])) {
    const area = AREA_BY_ID.get(Number(row.id));
    if (area) version[area] = Number(row.version);
  }
  return version;
}

export interface PartitionOptions {
  /** The areas whose writes make the partition's entries stale. */
  areas: readonly DirectoryArea[];
  /** The most weight (entries, or ids held, as the partition counts them) kept; least recently used go first. */
  maxWeight: number;
  /** Entries older than this are dropped even without a write (for orders that move without one). */
  ttlMs?: number;
}

interface Entry<V> {
  value: V;
  weight: number;
  at: number;
}

/** One kind of cached value: an LRU map with a weight budget, emptied when one of its areas moves. */
export class CachePartition<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private weight = 0;
  /** Raised by every clear: a value loaded across a clear may predate the write that caused it. */
  private clears = 0;
  /** Loads in flight, by key, with the generation they started in. */
  private readonly loading = new Map<K, { generation: number; value: Promise<V> }>();
  hits = 0;
  misses = 0;

  constructor(
    readonly options: PartitionOptions,
    private readonly now: () => number,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || (this.options.ttlMs !== undefined && this.now() - entry.at > this.options.ttlMs)) {
      if (entry) this.delete(key, entry);
      this.misses += 1;
      return undefined;
    }
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits += 1;
    return entry.value;
  }

  private set(key: K, value: V, weight: number): V {
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    if (weight > this.options.maxWeight) return value;
    this.entries.set(key, { value, weight, at: this.now() });
    this.weight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.weight <= this.options.maxWeight) break;
      this.delete(oldest, entry);
    }
    return value;
  }

  /** The cached value, or `load`'s (cached with the weight `weigh` gives it). */
  async through(key: K, load: () => Promise<V> | V, weigh: (value: V) => number = () => 1): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    // One load per key at a time: searches arriving while a keyword's list is being ranked wait for it.
    const generation = this.clears;
    const loading = this.loading.get(key);
    if (loading && loading.generation === generation) return loading.value;
    const value = Promise.resolve().then(load);
    this.loading.set(key, { generation, value });
    try {
      const loaded = await value;
      return generation === this.clears ? this.set(key, loaded, weigh(loaded)) : loaded;
    } finally {
      if (this.loading.get(key)?.value === value) this.loading.delete(key);
    }
  }

  /**
   * The cached values of `keys`, the missing ones loaded together by `load` (which may leave a key out:
   * it is then answered `absent` and cached so).
   */
  async throughMany(keys: readonly K[], load: (missing: K[]) => Promise<Map<K, V>>, absent: V, weigh: (value: V) => number = () => 1): Promise<Map<K, V>> {
    const found = new Map<K, V>();
    const missing: K[] = [];
    for (const key of new Set(keys)) {
      const cached = this.get(key);
      if (cached === undefined) missing.push(key);
      else found.set(key, cached);
    }
    if (missing.length === 0) return found;
    const generation = this.clears;
    const loaded = await load(missing);
    for (const key of missing) {
      const value = loaded.get(key) ?? absent;
      found.set(key, generation === this.clears ? this.set(key, value, weigh(value)) : value);
    }
    return found;
  }

  /** Raised by every clear (values derived from this partition's values compare it). */
  get generation(): number {
    return this.clears;
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
    this.clears += 1;
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: K, entry: Entry<V>): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}

/**
 * The read caches of one process (or one read worker): partitions of values derived from the directory,
 * each emptied when a version row of one of its areas has moved. `refresh()` reads the version rows;
 * call it once per request before reading the partitions, so a request sees every write committed
 * before it started, by this process or by any other.
 */
export class ReadCache {
  private readonly partitions: CachePartition<unknown, unknown>[] = [];
  private version: DirectoryVersion | undefined;
  private pending: Promise<void> | undefined;
  readonly now: () => number;

  constructor(
    private readonly readVersion: () => Promise<DirectoryVersion>,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  partition<K, V>(options: PartitionOptions): CachePartition<K, V> {
    const partition = new CachePartition<K, V>(options, this.now);
    this.partitions.push(partition as CachePartition<unknown, unknown>);
    return partition;
  }

  /**
   * Reads the versions and empties the partitions of the areas that moved. Callers in one synchronous
   * run (the kinds of one search) share one read; a caller after that reads again.
   */
  refresh(): Promise<void> {
    if (this.pending) return this.pending;
    const pending = this.readVersion().then((version) => this.apply(version));
    this.pending = pending;
    queueMicrotask(() => {
      if (this.pending === pending) this.pending = undefined;
    });
    return pending;
  }

  /** The version of the area as last read (undefined before the first refresh). */
  versionOf(area: DirectoryArea): number | undefined {
    return this.version?.[area];
  }

  private apply(version: DirectoryVersion): void {
    const before = this.version;
    this.version = version;
    if (!before) return;
    const moved = (Object.keys(version) as DirectoryArea[]).filter((area) => version[area] !== before[area]);
    if (moved.length === 0) return;
    for (const partition of this.partitions) {
      if (partition.options.areas.some((area) => moved.includes(area))) partition.clear();
    }
  }
}
