import type { Department, Grant, Team, User } from '../directory/types.js';
import type { FileInput } from '../store/directory-writes/directory-writer.js';
import type { Db } from '../store/schema/schema.js';
import type { ChangeProgress } from './change-progress.js';
import type { ExistingDirectory } from './existing-directory.js';
import type { SectionName } from './records.js';
import type { ValidSnapshot } from './validate.js';

/** The four sections of the directory: `teams`, `departments`, `users`, `files`. */
export type DirectorySection = SectionName;

/** A user as stored: the record's fields, their memberships and whether they are active. */
export type StoredUser = User & { departmentIds: string[]; active: boolean };

/** A file as stored: its metadata, its grants, and the size of the bytes collab-host holds for it (or null). */
export interface StoredFile {
  file: FileInput;
  grants: Grant[];
  contentSize: number | null;
}

/** The stored record of each section. */
export interface StoredRecords {
  teams: Team;
  departments: Department;
  users: StoredUser;
  files: StoredFile;
}

/** Reads of stored records, by id or page by page in id order (exports, the management API's listings). */
export interface DirectoryRecordReader {
  /**
   * The stored records among `ids`, in no particular order. Memberships and grants that name a row no
   * longer there are left out. Files of every status unless `activeOnly`.
   */
  read<S extends DirectorySection>(section: S, ids: readonly string[], options?: { activeOnly?: boolean }): Promise<StoredRecords[S][]>;
  /** Up to `limit` ids after `after` (exclusive; from the start when absent), in id order. */
  pageIds(section: DirectorySection, page: { after?: string; limit?: number; activeOnly?: boolean }): Promise<string[]>;
  /** The hex SHA-256 of a file's stored bytes (wherever they are kept), if it has any. */
  storedContentSha256(fileId: string): Promise<string | undefined>;
  /** How many files have bytes that collab-host stores. */
  storedContentCount(): Promise<number>;
}

/** What a department carries with it: what a move to another team would take across. */
export interface DepartmentDependents {
  members: number;
  children: number;
  grants: number;
}

/** Bytes to store for a third-party file. */
export interface ContentToStore {
  fileId: string;
  contentType: string;
  bytes: Buffer;
}

/** The ids a change creates, updates and removes, by section (a DirectoryDiff is one). */
export interface RecordChanges {
  created: Record<DirectorySection, readonly string[]>;
  updated: Record<DirectorySection, readonly string[]>;
  removed: Record<DirectorySection, readonly string[]>;
}

/** One transaction of a directory change: what the one validated path reads and writes. */
export interface DirectoryTransaction extends DirectoryRecordReader {
  /** The transaction itself, for the listeners. */
  readonly db: Db;
  /** The lookups the validation makes. */
  readonly existing: ExistingDirectory;
  /** Serialises directory writes (other instances and processes included); called first. */
  lockWrites(): Promise<void>;
  /** Member, sub-department and grant counts of each of the departments among `ids` that has any. */
  departmentDependents(ids: readonly string[]): Promise<Map<string, DepartmentDependents>>;
  /** How many active users each team has (teams without any are absent). */
  activeUsersByTeam(): Promise<Map<string, number>>;
  /** Those of `teamIds` that have at least one active user (an indexed look per team, not a count). */
  teamsWithActiveUsers(teamIds: readonly string[]): Promise<Set<string>>;
  /** How many teams there are. */
  teamCount(): Promise<number>;
  /**
   * Writes validated records (upsert by id; with `replace`, the directory becomes the snapshot: every
   * directory row removed first, or, given the `diff` of the snapshot with the store and when it changes
   * little, only the records it names written or removed). Resolves to whether every row was written
   * anew (a replace's rewrite).
   */
  write(snapshot: ValidSnapshot, contents: readonly ContentToStore[], options: { replace: boolean; diff?: RecordChanges; progress?: ChangeProgress }): Promise<boolean>;
  /**
   * Removes one record with what goes with it (a department's memberships and grants, a user's memberships
   * and grants, a file's grants and bytes), or answers why it cannot: rows that would point at nothing.
   */
  remove(section: DirectorySection, id: string): Promise<{ removed: true } | { removed: false; reason: string }>;
}

/** The store side of the one validated path for directory writes. */
export interface DirectoryWriteStore extends DirectoryRecordReader {
  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: DirectoryTransaction) => Promise<T>): Promise<T>;
  /** After a bulk change: lets the database plan from the new table sizes. */
  refreshStatistics(): Promise<void>;
}
