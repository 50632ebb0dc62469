import type { DirectoryModel } from './directory-model.js';

/** Where the model comes from: the store side that loads it and follows the change feed. */
export interface ModelSource {
  /** Replaced whole when the directory is loaded again: read it where it is used, never keep it. */
  readonly model: DirectoryModel;
  /**
   * Moves each time the model takes in changes or is replaced: what was derived from it (the events'
   * trust answers) is outdated by a new value, whatever the store's own version said when it was read.
   */
  readonly generation: number;
  /**
   * Settles when the model holds every write committed before the call by this process (and, once loaded,
   * what the feed has brought from others): at once when nothing was written since the last catch-up.
   */
  current(): Promise<void>;
}
