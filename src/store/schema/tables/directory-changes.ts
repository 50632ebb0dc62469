/**
 * The directory's change feed (migration 110): one row per changed key, its id raised by every new change
 * of that key. Written by triggers only; read by src/store/change-feed/directory-change-feed.ts.
 */
export interface DirectoryChangeTables {
  directory_changes: {
    id: number;
    /** team, department, user, membership, file, grants, content, or all (a TRUNCATE). */
    subject: string;
    /** The id of the changed thing (a user id for membership, a file id for grants and content). */
    key: string;
  };
}
