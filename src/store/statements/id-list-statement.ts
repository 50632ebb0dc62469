import type { Db } from '../schema/schema.js';
import { Statement } from './statement.js';

/** List lengths whose statement is kept: a write's lists are short (one id, for one SCIM request). */
const KEPT_LENGTHS = 32;

/**
 * A fixed statement over a list of ids: `$ids` in the text stands for the list (`… IN ($ids)`). Its text
 * is numbered once per list length and kept for short lists, so a small write builds no query tree per
 * lookup and meets the same prepared statement each time.
 */
export class IdListStatement {
  private readonly byLength = new Map<number, Statement>();

  constructor(private readonly text: string) {}

  /** The rows for `ids` (none for an empty list). */
  async run<Row = unknown>(db: Db, ids: readonly unknown[]): Promise<Row[]> {
    if (ids.length === 0) return [];
    return this.statement(ids.length).run<Row>(db, ids);
  }

  private statement(length: number): Statement {
    const kept = this.byLength.get(length);
    if (kept) return kept;
    const list = Array.from({ length }, (_, index) => `$${index + 1}`).join(', ');
    const statement = new Statement(this.text.replace('$ids', list));
    if (length <= KEPT_LENGTHS) this.byLength.set(length, statement);
    return statement;
  }
}
