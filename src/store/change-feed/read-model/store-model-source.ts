import { getHeapStatistics } from 'node:v8';
import type { Kysely } from 'kysely';
import { DirectoryModel } from '../../../directory/read-model/directory-model.js';
import type { ThreadOptions } from '../../../directory/read-model/name-index-threads.js';
import type { ModelSource } from '../../../directory/read-model/model-directory.js';
import type { OpenDatabase } from '../../connection/database.js';
import { dialectOf } from '../../dialect/dialect.js';
import { feedEnd, inSnapshot, readFeed, type FeedPosition } from '../directory-change-feed.js';
import { AnswerNotWanted } from '../../../shared/one-answer-thread.js';
import type { Database, Db } from '../../schema/schema.js';
import { loadWholeModel, reloadChanged } from './model-rows.js';

export interface StoreModelSourceOptions {
  /**
   * How often the feed is read for what other processes wrote (another instance, `collab-host import`,
   * a DBA's SQL): the bound of their staleness. 0: never (tests call `catchUp`).
   */
  pollMs?: number;
  /**
   * PostgreSQL: also catch up as soon as another process's directory write commits, woken by the feed's
   * NOTIFY (migration 110) on a LISTEN connection of its own; the poll stays as the fallback. Default: on
   * when `pollMs` is set.
   */
  listen?: boolean;
  /** More changes than this in one read: the model is loaded again whole (a bulk import). */
  reloadAbove?: number;
  /** Told of a failed catch-up (the model then stays as it was until the next one). */
  onError?: (error: unknown) => void;
  /** Told that a whole load's name indexes were built on the calling thread, their own thread having failed (slower, the same indexes). */
  onThreadFailure?: (error: unknown) => void;
  /** Where and from how many names a whole load builds its name indexes in a thread (tests; the defaults otherwise). */
  nameIndexThread?: ThreadOptions;
  /** Rows per query of a whole load (default 5,000; tests make pages small to cross their edges). */
  loadPageRows?: number;
  /** Monotonic milliseconds, for `loadMs`. */
  now?: () => number;
  /**
   * Called after each whole load (the first, before the model is ready, and any reload of everything),
   * outside its snapshot: the server compacts the heap there (src/composition/compact-heap.ts).
   */
  afterWholeLoad?: () => void;
  /**
   * Whether a reload of everything may fill a second model beside the one serving (reads go on
   * meanwhile) rather than clear and refill it (reads wait). Default: while the heap has room for twice
   * what it holds (`roomForSecondModel`).
   */
  reloadAside?: () => boolean;
}

/**
 * Whether V8's heap limit leaves room for a second model and the garbage its load leaves: more than
 * twice what the heap holds now (about the model, after the compaction that follows a whole load).
 */
export function roomForSecondModel(): boolean {
  const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
  return limit - used > 2 * used;
}

const RESOLVED = Promise.resolve();

/** How often a serving process reads the feed for other processes' writes (their staleness bound, docs/operations.md). */
export const READ_MODEL_POLL_MS = 250;

/**
 * The read model of an open store: loaded whole at start, then kept current from the change feed
 * (migration 110) — after every write of this process before the next read (the store's WriteSignal),
 * and every `pollMs` for the writes of others. One snapshot per catch-up: the feed and the rows it
 * names are read together.
 */
export class StoreModelSource implements ModelSource {
  /** Replaced whole by a reload of everything with room for it (`catchUp`); else filled in place. */
  model = new DirectoryModel();
  /** See ModelSource: moved by every catch-up that changed the model. */
  generation = 0;
  /** Settles when the first load is done (rejects if it failed). */
  readonly loaded: Promise<void>;
  /** How long the first load took, in ms (undefined until it is done). */
  loadMs: number | undefined;
  private position: FeedPosition = { afterId: 0, pendingXids: [] };
  /** The store's write count the model has caught up with. */
  private caughtUp = -1;
  private running: Promise<void> | undefined;
  private runningFrom = -1;
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  /** A catch-up is queued to start after the one running (a NOTIFY came during it). */
  private woken = false;
  /** The catch-up running clears and refills the model (no room for a second one): reads wait for it. */
  private reloadingInPlace = false;
  private closed = false;
  /** Aborted by `close`: a load under way stops waiting for its name index thread, which is stopped. */
  private readonly closing = new AbortController();
  private failed = false;
  private readonly db: Kysely<Database>;

  constructor(
    private readonly store: OpenDatabase,
    private readonly options: StoreModelSourceOptions = {},
  ) {
    // SQLite files: the read connection, which never waits for the writer.
    this.db = store.readDb ?? store.db;
    const now = options.now ?? (() => performance.now());
    const started = now();
    const from = this.writes();
    this.loaded = this.run(async (trx) => {
      await this.loadWhole(trx);
      this.position = await feedEnd(trx);
    }).then(() => {
      const loadMs = now() - started;
      options.afterWholeLoad?.();
      this.loadMs = loadMs;
      this.caughtUp = from;
      if (this.closed) return;
      if (options.pollMs) {
        this.timer = setInterval(() => {
          this.catchUp().catch((error: unknown) => options.onError?.(error));
        }, options.pollMs);
        this.timer.unref();
      }
      if (options.listen ?? Boolean(options.pollMs)) {
        this.stopListening = dialectOf(store.db).listenForDirectoryChanges(
          store,
          () => this.wake(),
          (error) => options.onError?.(error),
        );
      }
    });
    // Callers see a failed load through `loaded` or `current()`; never as an unhandled rejection.
    this.loaded.catch((error: unknown) => {
      this.failed = true;
      // Closed while it loaded: the load was given up, nothing went wrong.
      if (!(error instanceof AnswerNotWanted)) options.onError?.(error);
    });
  }

  current(): Promise<void> {
    if (this.loadMs === undefined) return this.loaded.then(() => this.current());
    // A reload of the whole directory under way (another process's bulk import) fills a model of its own:
    // reads go on from this one meanwhile, the directory as it was, unless this process wrote since. One
    // that clears and refills this model (no room for two) is waited for: none sees it half filled.
    if (this.reloadingInPlace && this.running) return this.running.catch(() => undefined).then(() => this.current());
    if (this.caughtUp === this.writes()) return RESOLVED;
    return this.catchUp();
  }

  /** Reads the feed and applies what it names (one at a time; a call during a read waits for the next one). */
  async catchUp(): Promise<void> {
    await this.loaded;
    const target = this.writes();
    while (this.running) {
      const running = this.running;
      if (this.runningFrom >= target) return running;
      await running.catch(() => {});
    }
    const from = this.writes();
    const reloadAbove = this.options.reloadAbove ?? 20_000;
    this.runningFrom = from;
    let whole = false;
    const running = this.run(async (trx) => {
      const read = await readFeed(trx, this.position, reloadAbove);
      // `all`: a TRUNCATE of a directory table (migration 110).
      whole = read.overflow || read.changes.some((change) => change.subject === 'all');
      if (whole && (this.options.reloadAside ?? roomForSecondModel)()) {
        // Filled aside and put in place once whole: no read sees part of it, none waits for it.
        const reloaded = new DirectoryModel();
        await this.loadWhole(trx, reloaded);
        const replaced = this.model;
        this.model = reloaded;
        // A name index build of the old model under way stops at its next slice.
        replaced.search.clear();
      } else if (whole) {
        this.reloadingInPlace = true;
        try {
          await this.loadWhole(trx);
        } finally {
          this.reloadingInPlace = false;
        }
      } else await reloadChanged(trx, this.model, read.changes);
      this.position = read.position;
      if (whole || read.changes.length > 0) this.generation += 1;
    }).then(() => {
      if (whole) this.options.afterWholeLoad?.();
      this.caughtUp = Math.max(this.caughtUp, from);
    });
    this.running = running;
    try {
      await running;
    } finally {
      if (this.running === running) this.running = undefined;
    }
  }

  /**
   * Catches up in a read that starts after this call (another process committed a directory write): one
   * running now may have taken its snapshot before that commit, so a new one is queued behind it.
   */
  private wake(): void {
    if (this.woken) return;
    this.woken = true;
    void (async () => {
      while (this.running) await this.running.catch(() => {});
      this.woken = false;
      await this.catchUp();
    })().catch((error: unknown) => this.options.onError?.(error));
  }

  /** Whether the model can answer: `loading` until the first load is done, `failed` if it failed. */
  get state(): 'loading' | 'ready' | 'failed' {
    return this.failed ? 'failed' : this.loadMs === undefined ? 'loading' : 'ready';
  }

  /** Stops following the feed (settles when the LISTEN connection is closed); a first load under way is given up. */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.();
  }

  private writes(): number {
    return this.store.writes?.generation ?? 0;
  }

  /** Loads the whole directory as `trx` sees it into `model` (the first load, and a reload of everything). */
  private loadWhole(trx: Db, model = this.model): Promise<void> {
    return loadWholeModel(trx, model, this.options.loadPageRows, (error) => this.options.onThreadFailure?.(error), {
      ...this.options.nameIndexThread,
      signal: this.closing.signal,
    });
  }

  private run(work: Parameters<typeof inSnapshot<void>>[1]): Promise<void> {
    return inSnapshot(this.db, work);
  }
}
