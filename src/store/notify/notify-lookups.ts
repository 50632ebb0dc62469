import type { ImIds } from '../../directory/types.js';
import { chunks } from '../directory-reads/directory-lookups.js';
import { storableText } from '../statements/row-insert.js';
import type { Db } from '../schema/schema.js';

/** What routing and messages need of a person (collab-host's own directory). */
export interface NoticePerson {
  id: string;
  name: string;
  email: string | null;
  teamId: string | null;
  active: boolean;
  locale: string | null;
  im: ImIds;
}

export interface NoticeFile {
  id: string;
  name: string;
  teamId: string | null;
}

const unique = (ids: readonly string[]) => [...new Set(ids.map((id) => storableText(id)))];

/** The directory facts notifications read: people, files, and who wrote a comment replied to. */
export const notifyLookups = {
  async people(db: Db, ids: readonly string[]): Promise<Map<string, NoticePerson>> {
    const found = new Map<string, NoticePerson>();
    for (const chunk of chunks(unique(ids))) {
      const rows = await db.selectFrom('users').select(['id', 'name', 'email', 'team_id', 'active', 'locale', 'im']).where('id', 'in', chunk).execute();
      for (const row of rows) {
        found.set(row.id, {
          id: row.id,
          name: row.name,
          email: row.email,
          teamId: row.team_id,
          active: Number(row.active) !== 0,
          locale: row.locale,
          im: row.im ? (JSON.parse(row.im) as ImIds) : {},
        });
      }
    }
    return found;
  },

  async files(db: Db, ids: readonly string[]): Promise<Map<string, NoticeFile>> {
    const found = new Map<string, NoticeFile>();
    for (const chunk of chunks(unique(ids))) {
      const rows = await db.selectFrom('files').select(['id', 'name', 'team_id']).where('id', 'in', chunk).execute();
      for (const row of rows) found.set(row.id, { id: row.id, name: row.name, teamId: row.team_id });
    }
    return found;
  },

  /**
   * The authors of comments, by `<fileId>:<commentId>`, from their `comment.created` notifications (whose
   * dedupe key is `comment:<fileId>:<commentId>`); a comment older than the outbox is not found.
   */
  async commentAuthors(db: Db, comments: ReadonlyArray<{ fileId: string; commentId: string }>): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const keys = unique(comments.map((comment) => `comment:${comment.fileId}:${comment.commentId}`));
    for (const chunk of chunks(keys)) {
      const rows = await db.selectFrom('notifications').select(['dedupe_key', 'data']).where('dedupe_key', 'in', chunk).execute();
      for (const row of rows) {
        const author = (JSON.parse(row.data) as { userId?: unknown }).userId;
        if (typeof author === 'string' && row.dedupe_key) found.set(row.dedupe_key.slice('comment:'.length), author);
      }
    }
    return found;
  },
};
