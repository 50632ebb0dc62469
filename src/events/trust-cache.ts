import type { StoreDirectory } from '../directory/directory.js';
import type { DirectoryService } from '../directory/directory-service.js';
import type { Permissions } from '../directory/types.js';
import { yieldToEventLoop } from '../shared/event-loop.js';

/** Whether a user may act at all: known and active. */
export type UserState = 'active' | 'deactivated' | 'unknown';

/** Answers kept, at most; past it the oldest go first. */
const MAX_ENTRIES = 50_000;

/**
 * The directory facts the event trust rules ask (a user's state, a user's permissions on a file), kept in
 * memory while the directory's change version stays the same: one small read per turn of the event loop
 * (shared by the events that arrived in it) instead of a user and a file lookup per event, and none of
 * the rows' mapping. Every directory write moves the version (the
 * store's triggers, whoever writes), so a deactivation or a revoked grant is in force for the next event
 * on every instance. A directory without a change version (a host application's) is asked every time.
 */
export class TrustCache {
  private version: string | undefined;
  private following: Promise<void> | undefined;
  private readonly users = new Map<string, UserState>();
  private readonly permissions = new Map<string, Permissions | null>();

  constructor(
    private readonly directory: DirectoryService<StoreDirectory>,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /**
   * Reads the change version for the lookups that follow, dropping what it outdated. The events that
   * arrive in one turn of the event loop share one read, made on the next turn, after the last of them
   * arrived: each still sees every directory write committed before it came in.
   */
  follow(): Promise<void> {
    this.following ??= yieldToEventLoop().then(() => {
      this.following = undefined;
      return this.readVersion();
    });
    return this.following;
  }

  private async readVersion(): Promise<void> {
    const version = await this.directory.directory.changeVersion?.();
    if (version === undefined || version !== this.version) {
      this.users.clear();
      this.permissions.clear();
    }
    this.version = version;
  }

  async userState(userId: string): Promise<UserState> {
    const cached = this.users.get(userId);
    if (cached !== undefined) return cached;
    const asked = this.version;
    const user = await this.directory.directory.getUser(userId);
    const state: UserState = !user ? 'unknown' : user.active === false ? 'deactivated' : 'active';
    return this.keep(this.users, userId, state, asked);
  }

  /** The user's permissions on the file, or null when the file is unknown or not active. */
  async permissionsOn(fileId: string, userId: string): Promise<Permissions | null> {
    const key = `${fileId}\u0000${userId}`;
    const cached = this.permissions.get(key);
    if (cached !== undefined) return cached;
    const asked = this.version;
    const view = await this.directory.fileAsSeenBy(fileId, userId);
    return this.keep(this.permissions, key, view?.permissions ?? null, asked);
  }

  /**
   * Keeps an answer under the version it was asked at, only if that is still the version: a look-up
   * that waited (for a catch-up of the model) while a later `follow` moved the version may hold facts
   * from before it.
   */
  private keep<V>(map: Map<string, V>, key: string, value: V, asked: string | undefined): V {
    if (this.version === undefined || asked !== this.version) return value;
    if (map.size >= this.maxEntries) map.delete(map.keys().next().value as string);
    map.set(key, value);
    return value;
  }
}
