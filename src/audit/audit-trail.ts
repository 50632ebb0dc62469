import type { Kysely } from 'kysely';
import { formatTime } from '../directory/time.js';
import type { Permissions } from '../directory/types.js';
import { PollingTask, SILENT_LOG, type TaskLog } from '../events/polling-task.js';
import { auditLog, type AuditRecord } from '../store/audit/audit-log.js';
import type { Database } from '../store/schema/schema.js';

/** What an audit entry is about. */
export type AuditKind = 'file_access' | 'management' | 'directory_change' | 'sign_in';
/** How the caller proved who it is (directory changes: the source that wrote them). */
export type AuditCredential = 'user_token' | 'share_link' | 'platform_signature' | 'download_link' | 'admin_key' | 'console_session' | 'api' | 'snapshot' | 'scim' | 'ldap';

export type AuditEntry = Omit<AuditRecord, 'at' | 'kind' | 'credential'> & { kind: AuditKind; credential: AuditCredential };

export interface AuditTrailOptions {
  now?: () => number;
  log?: TaskLog;
  /** Entries held in memory at most; past it new ones are dropped (and counted) until a flush makes room. */
  maxBuffered?: number;
  /** Rows one flush statement writes at most. */
  batchSize?: number;
  flushMs?: number;
  /**
   * Identical access decisions (same user, file, credential and permissions) within this window of the
   * first are one entry with a count (`details.count`, `details.lastAt`); 0 records each one.
   */
  coalesceMs?: number;
  /** Distinct decisions whose repeats are gathered at once, at most (past it the oldest window ends early). */
  maxGathering?: number;
}

/** How long identical access decisions are gathered into one entry by default. */
export const AUDIT_COALESCE_MS = 60_000;

/** Counters of this process since it started (metrics). */
export interface AuditCounts {
  recorded: number;
  /** Access decisions counted into an entry already open instead of making one. */
  coalesced: number;
  written: number;
  dropped: number;
  buffered: number;
}

/** Identical decisions after a written access entry, gathered until its window ends. */
interface OpenAccess {
  key: string;
  record: AuditRecord;
  until: number;
  /** Decisions after the first (0: nothing to write when the window ends). */
  count: number;
  firstAt: number;
  lastAt: number;
  /** The routes that asked, in order (at most MAX_ACTIONS). */
  actions: string[];
}

/** Distinct decisions whose repeats are gathered at once, at most, by default. */
const MAX_GATHERING = 50_000;

/** Distinct routes an access entry names at most. */
const MAX_ACTIONS = 10;

/** The names of the permissions granted, in a fixed order: what an access decision records. */
export function grantedPermissions(permissions: Permissions): string[] {
  return RECORDED_PERMISSIONS.filter((name) => permissions[name]);
}

const RECORDED_PERMISSIONS: ReadonlyArray<keyof Permissions> = ['readable', 'commentable', 'editable', 'copyable', 'exportable', 'manageable'];

/**
 * The key of an access decision among those being gathered: one string per decision, each part
 * unambiguous (ids length-prefixed, null apart; a credential and permission names hold no `|`), made
 * without the array and JSON text a `JSON.stringify` of the parts costs on every document open.
 */
function decisionKey(entry: AuditEntry): string {
  const { actorId, fileId } = entry;
  const actor = actorId === null ? '-' : `${actorId.length}:${actorId}`;
  const file = fileId === null ? '-' : `${fileId.length}:${fileId}`;
  return `${actor}|${file}|${entry.credential}|${entry.permissions === null ? '-' : entry.permissions.join(',')}`;
}

/**
 * The audit trail's writer for the request path. Access decisions are made on every document open: each
 * is put in a bounded in-memory buffer and written in batches (every `flushMs`, when a batch fills, and
 * on close), never a statement per request. The first of identical access decisions is written so at
 * once; the ones within `coalesceMs` after it are one more entry with their count, written when that
 * window ends (a kill loses those counts, never the first access). Entries still buffered when the process dies are lost; a full
 * buffer (the database away for long) drops new entries and counts them.
 */
export class AuditTrail {
  private buffer: AuditRecord[] = [];
  /** Repeats being gathered, by decision. */
  private readonly open = new Map<string, OpenAccess>();
  /**
   * The same in the order their windows opened (so also by window end), with some already released
   * (those not in `open` any more) still in it until they reach its head. Kept apart from the map
   * because a map's first entry is found by walking past every entry deleted before it: with the
   * oldest window ended on every new decision once `maxGathering` is reached, that walk was most of a
   * document open's CPU.
   */
  private order: OpenAccess[] = [];
  private orderHead = 0;
  private readonly maxGathering: number;
  private task: PollingTask | undefined;
  private readonly now: () => number;
  private readonly log: TaskLog;
  private readonly maxBuffered: number;
  private readonly batchSize: number;
  private readonly flushMs: number;
  private readonly coalesceMs: number;
  private warnedFull = false;
  private formattedSecond = Number.NaN;
  private formatted = '';
  readonly counts: Omit<AuditCounts, 'buffered'> = { recorded: 0, coalesced: 0, written: 0, dropped: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    options: AuditTrailOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.log = options.log ?? SILENT_LOG;
    this.maxBuffered = options.maxBuffered ?? 10_000;
    this.batchSize = options.batchSize ?? 500;
    this.flushMs = options.flushMs ?? 1000;
    this.coalesceMs = options.coalesceMs ?? AUDIT_COALESCE_MS;
    this.maxGathering = options.maxGathering ?? MAX_GATHERING;
  }

  record(entry: AuditEntry): void {
    const now = this.now();
    const key = entry.kind === 'file_access' && this.coalesceMs > 0 ? decisionKey(entry) : undefined;
    if (key !== undefined) {
      const gathering = this.open.get(key);
      if (gathering !== undefined && now < gathering.until) {
        if (gathering.count === 0) gathering.firstAt = now;
        gathering.count += 1;
        gathering.lastAt = now;
        if (gathering.actions.length < MAX_ACTIONS && !gathering.actions.includes(entry.action)) gathering.actions.push(entry.action);
        this.counts.coalesced += 1;
        return;
      }
      if (gathering !== undefined) this.release(gathering);
    }
    if (this.buffer.length >= this.maxBuffered) {
      this.counts.dropped += 1;
      if (!this.warnedFull) this.log.warn({ maxBuffered: this.maxBuffered }, 'audit buffer full: entries are dropped until the database takes them');
      this.warnedFull = true;
      this.task?.wake();
      return;
    }
    this.counts.recorded += 1;
    // Field by field rather than a spread: one object shape for every entry, made on every document open.
    const record: AuditRecord = {
      at: this.timeText(now),
      kind: entry.kind,
      actorId: entry.actorId,
      credential: entry.credential,
      fileId: entry.fileId,
      action: entry.action,
      permissions: entry.permissions,
      details: entry.details,
    };
    this.buffer.push(record);
    if (key !== undefined) {
      // Bounded: past maxGathering distinct decisions, the oldest window ends early (its repeats are written).
      if (this.open.size >= this.maxGathering) {
        const oldest = this.oldestOpen();
        if (oldest !== undefined) this.release(oldest);
      }
      const opened: OpenAccess = { key, record, until: now + this.coalesceMs, count: 0, firstAt: now, lastAt: now, actions: [] };
      this.open.set(key, opened);
      this.order.push(opened);
    }
    if (this.buffer.length >= this.batchSize) this.task?.wake();
  }

  /** `formatTime(now)`, made once a second (a document open otherwise formats a date each). */
  private timeText(now: number): string {
    const second = Math.floor(now / 1000);
    if (second !== this.formattedSecond) {
      this.formattedSecond = second;
      this.formatted = formatTime(second * 1000);
    }
    return this.formatted;
  }

  /** The window opened first of those still open; released ones met on the way leave the order. */
  private oldestOpen(): OpenAccess | undefined {
    while (this.orderHead < this.order.length) {
      const first = this.order[this.orderHead]!;
      if (this.open.get(first.key) === first) return first;
      this.dropOrderHead();
    }
    return undefined;
  }

  private dropOrderHead(): void {
    this.orderHead += 1;
    if (this.orderHead === this.order.length) {
      this.order = [];
      this.orderHead = 0;
    } else if (this.orderHead >= 4096 && this.orderHead * 2 >= this.order.length) {
      this.order = this.order.slice(this.orderHead);
      this.orderHead = 0;
    }
  }

  /** Moves access entries whose window has ended (all of them: `everything`) to the buffer. */
  private releaseEnded(everything: boolean): void {
    const now = this.now();
    for (let oldest = this.oldestOpen(); oldest !== undefined; oldest = this.oldestOpen()) {
      if (!everything && now < oldest.until) break;
      this.release(oldest);
    }
  }

  private release(gathering: OpenAccess): void {
    this.open.delete(gathering.key);
    const { record, count, firstAt, lastAt, actions } = gathering;
    if (count === 0) return;
    this.buffer.push({
      ...record,
      at: formatTime(firstAt),
      action: actions[0] ?? record.action,
      details: { ...record.details, repeated: count, lastAt: formatTime(lastAt), ...(actions.length > 1 ? { actions } : {}) },
    });
  }

  /** Starts the periodic flush (the app does on ready). */
  start(): this {
    this.task ??= new PollingTask('audit-flush', () => this.writeBatch(), this.flushMs, this.log).start();
    return this;
  }

  /** Writes everything buffered now, with the repeats of windows that have ended (`endWindows`: of every window). */
  async flush(options: { endWindows?: boolean } = {}): Promise<void> {
    if (options.endWindows === true) this.releaseEnded(true);
    while (await this.writeBatch());
  }

  /** Stops the periodic flush and writes what is left, repeats still being gathered included. */
  async close(): Promise<void> {
    await this.task?.stop();
    this.task = undefined;
    await this.flush({ endWindows: true });
  }

  /** Entries not written yet: buffered, and gathered repeats waiting for their window to end. */
  buffered(): number {
    let gathered = 0;
    for (const gathering of this.open.values()) if (gathering.count > 0) gathered += 1;
    return this.buffer.length + gathered;
  }

  /** One batch to the store (access entries whose window ended first); true when more is waiting. A failed write puts back what it did not write. */
  private async writeBatch(): Promise<boolean> {
    this.releaseEnded(false);
    if (this.buffer.length === 0) return false;
    const batch = this.buffer.splice(0, this.batchSize);
    let written = 0;
    try {
      await auditLog.appendBuffered(this.db, batch, (rows) => {
        written += rows;
        this.counts.written += rows;
      });
    } catch (error) {
      const kept = [...batch.slice(written), ...this.buffer];
      const room = this.maxBuffered;
      this.counts.dropped += Math.max(0, kept.length - room);
      this.buffer = kept.slice(0, room);
      throw error;
    }
    this.warnedFull = false;
    return this.buffer.length > 0;
  }
}
