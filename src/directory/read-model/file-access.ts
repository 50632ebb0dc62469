import type { DirectoryModel } from './directory-model.js';

/**
 * Which files one user may read, from the model's grants by principal: the files granted to any of
 * their principals (themselves, their team, their departments and every ancestor) and the files they
 * created. Checking a file is a few map lookups.
 */
export class FileAccess {
  private readonly granted: ReadonlyArray<ReadonlyMap<string, number>>;
  private readonly created: ReadonlySet<string>;
  /** At least the number of files the user may read (any status), at most the sum of the parts. */
  readonly sizeBound: number;

  constructor(model: DirectoryModel, userId: string) {
    this.granted = model.principalsOf(userId).flatMap((principal) => model.filesOfPrincipal.get(principal) ?? []);
    this.created = model.createdFiles.get(userId) ?? new Set();
    this.sizeBound = this.granted.reduce((sum, files) => sum + files.size, this.created.size);
  }

  mayRead(fileId: string): boolean {
    if (this.created.has(fileId)) return true;
    for (const files of this.granted) if (files.has(fileId)) return true;
    return false;
  }

  /** The strongest rank granted (0: none; the creator rule is not applied). */
  rankOf(fileId: string): number {
    let best = 0;
    for (const files of this.granted) {
      const rank = files.get(fileId) ?? 0;
      if (rank > best) best = rank;
    }
    return best;
  }

  /** Every file the user may read, each once (for small sets: see `sizeBound`). */
  ids(): Set<string> {
    const ids = new Set(this.created);
    for (const files of this.granted) for (const id of files.keys()) ids.add(id);
    return ids;
  }
}
