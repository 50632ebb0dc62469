import type { StoreDirectory } from '../directory/directory.js';
import type { DirectoryService } from '../directory/directory-service.js';
import type { User } from '../directory/types.js';

/** Ids looked up per event at most (a multiple of the limit); the rest of a longer list is only counted. */
const CANDIDATES_PER_NOTIFIED = 4;
/** Ids per directory lookup: a huge list is looked up a chunk at a time, yielding to other work between. */
const LOOKUP_CHUNK = 500;

export interface Fanout {
  /** The users to notify or remind, in the order the body names them. */
  users: string[];
  /** Ids left out as unknown, deactivated or outside the file's team. */
  notKnown: number;
  /** Ids left out because the event named more than the limit. */
  overLimit: number;
}

/** One event's list of users to bound: on which file, sent by whom. */
export interface FanoutRequest {
  fileId: string;
  actorId: string;
  ids: readonly string[];
}

/**
 * Bounds what one event fans out to: only known, active users of the file's team (its own team, else its
 * creator's; any known user when neither has one), each once, at most `maxFanout` of them. A body with
 * 120,000 ids costs a bounded number of lookups and notifications; what is left out is counted in the
 * event's problem. One instance serves one processing batch: `prepare` looks up the users and files of
 * the whole batch at once (a lookup per chunk of ids, not per event), `bound` then answers from them.
 */
export class MentionFanout {
  private readonly teams = new Map<string, string | null>();
  private readonly users = new Map<string, User | null>();

  constructor(
    private readonly directory: DirectoryService<StoreDirectory>,
    private readonly maxFanout: number,
  ) {}

  /** Looks up, for a batch, the teams of the files and the users its events name. */
  async prepare(requests: readonly FanoutRequest[]): Promise<void> {
    for (const request of requests) {
      if (this.teams.has(request.fileId)) continue;
      // The actor's view of the file (a prepared lookup on the hot path) carries the file's team.
      this.teams.set(request.fileId, (await this.directory.fileAsSeenBy(request.fileId, request.actorId))?.teamGuid ?? null);
    }
    const wanted = [...new Set(requests.flatMap((request) => this.candidates(request.ids)))].filter((id) => !this.users.has(id));
    for (let start = 0; start < wanted.length; start += LOOKUP_CHUNK) {
      const chunk = wanted.slice(start, start + LOOKUP_CHUNK);
      for (const id of chunk) this.users.set(id, null);
      for (const user of await this.directory.directory.getUsers(chunk)) this.users.set(user.id, user);
    }
  }

  /** The bounded list for one event of the prepared batch. */
  bound(fileId: string, ids: readonly string[]): Fanout {
    const distinct = [...new Set(ids)];
    const candidates = this.candidates(distinct);
    const team = this.teams.get(fileId) ?? null;
    const allowed = candidates.filter((id) => {
      const user = this.users.get(id);
      return user !== undefined && user !== null && user.active !== false && (team === null || user.teamId === team);
    });
    const users = allowed.slice(0, this.maxFanout);
    return { users, notKnown: candidates.length - allowed.length, overLimit: distinct.length - candidates.length + (allowed.length - users.length) };
  }

  /** What a bounded list left out, for the event's problem; undefined when nothing was. */
  describe(what: string, named: number, fanout: Fanout): string | undefined {
    const left = fanout.notKnown + fanout.overLimit;
    if (left === 0) return undefined;
    const parts = [
      ...(fanout.notKnown > 0 ? [`${fanout.notKnown} unknown, deactivated or outside the file's team`] : []),
      ...(fanout.overLimit > 0 ? [`${fanout.overLimit} beyond the limit of ${this.maxFanout} per event`] : []),
    ];
    return `${what}: ${left} of ${named} user ids left out (${parts.join('; ')})`;
  }

  private candidates(ids: readonly string[]): string[] {
    return [...new Set(ids)].slice(0, this.maxFanout * CANDIDATES_PER_NOTIFIED);
  }
}
