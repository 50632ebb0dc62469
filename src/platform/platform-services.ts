import type { DocumentTaskDeps } from './document-tasks.js';
import type { SeatAction } from './seat-tasks.js';

/** A queued seat task as the listing shows it. */
export interface SeatTaskEntry {
  id: number;
  user_id: string;
  action: string;
  status: string;
  attempts: number;
  next_attempt_ms: number;
  last_error: string | null;
  source: string;
  created_at: string;
  done_at: string | null;
}

/** What the management API and the commands need for the platform: built once by src/composition/platform-wiring.ts. */
export interface PlatformServices {
  /** The document flows (create, copy, import, export, delete) with the configured client. */
  documents: DocumentTaskDeps;
  seats: {
    /** Seat tasks newest first, before the cursor id, optionally of one status. */
    list(options: { status?: string; beforeId?: number; limit: number }): Promise<SeatTaskEntry[]>;
    /** Queues seat tasks outside a directory change (re-send after a fix). */
    enqueue(tasks: ReadonlyArray<{ userId: string; action: SeatAction }>, options: { source: string; nowMs: number }): Promise<number>;
    /** Every user of the directory and whether they are active. */
    userStates(): Promise<Array<{ id: string; active: boolean }>>;
  };
}
