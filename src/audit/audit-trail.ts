import type { Kysely } from 'kysely';
import { formatTime } from '../directory/time.js';
import type { Permissions } from '../directory/types.js';
import { PollingTask, SILENT_LOG, type TaskLog } from '../events/polling-task.js';
import { auditLog, type AuditRecord } from '../store/audit-log.js';
import type { Database } from '../store/schema.js';

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
}

/** Counters of this process since it started (metrics). */
export interface AuditCounts {
  recorded: number;
  written: number;
  dropped: number;
  buffered: number;
}

/** The names of the permissions granted, in a fixed order: what an access decision records. */
export function grantedPermissions(permissions: Permissions): string[] {
  const order: Array<keyof Permissions> = ['readable', 'commentable', 'editable', 'copyable', 'exportable', 'manageable'];
  return order.filter((name) => permissions[name]);
}

/**
 * The audit trail's writer for the request path. Access decisions are made on every document open: each
 * is put in a bounded in-memory buffer and written in batches (every `flushMs`, when a batch fills, and
 * on close), never a statement per request. Entries still buffered when the process dies are lost; a full
 * buffer (the database away for long) drops new entries and counts them.
 */
export class AuditTrail {
  private buffer: AuditRecord[] = [];
  private task: PollingTask | undefined;
  private readonly now: () => number;
  private readonly log: TaskLog;
  private readonly maxBuffered: number;
  private readonly batchSize: number;
  private readonly flushMs: number;
  private warnedFull = false;
  readonly counts: Omit<AuditCounts, 'buffered'> = { recorded: 0, written: 0, dropped: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    options: AuditTrailOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.log = options.log ?? SILENT_LOG;
    this.maxBuffered = options.maxBuffered ?? 10_000;
    this.batchSize = options.batchSize ?? 500;
    this.flushMs = options.flushMs ?? 1000;
  }

  record(entry: AuditEntry): void {
    if (this.buffer.length >= this.maxBuffered) {
      this.counts.dropped += 1;
      if (!this.warnedFull) this.log.warn({ maxBuffered: this.maxBuffered }, 'audit buffer full: entries are dropped until the database takes them');
      this.warnedFull = true;
      this.task?.wake();
      return;
    }
    this.counts.recorded += 1;
    this.buffer.push({ ...entry, at: formatTime(this.now()) });
    if (this.buffer.length >= this.batchSize) this.task?.wake();
  }

  /** Starts the periodic flush (the app does on ready). */
  start(): this {
    this.task ??= new PollingTask('audit-flush', () => this.writeBatch(), this.flushMs, this.log).start();
    return this;
  }

  /** Writes everything buffered now (tests; shutdown). */
  async flush(): Promise<void> {
    while (await this.writeBatch());
  }

  /** Stops the periodic flush and writes what is left. */
  async close(): Promise<void> {
    await this.task?.stop();
    this.task = undefined;
    await this.flush();
  }

  buffered(): number {
    return this.buffer.length;
  }

  /** One batch to the store; true when more is waiting. A failed write puts its batch back. */
  private async writeBatch(): Promise<boolean> {
    if (this.buffer.length === 0) return false;
    const batch = this.buffer.splice(0, this.batchSize);
    try {
      await auditLog.append(this.db, batch);
    } catch (error) {
      const kept = [...batch, ...this.buffer];
      this.counts.dropped += Math.max(0, kept.length - this.maxBuffered);
      this.buffer = kept.slice(0, this.maxBuffered);
      throw error;
    }
    this.counts.written += batch.length;
    this.warnedFull = false;
    return this.buffer.length > 0;
  }
}
