/**
 * The SQL pieces that differ between the dialects on the read side of the store (a member of each
 * dialect, src/store/dialect/dialect.ts).
 */
export interface DialectSql {
  /** A list of ids bound as one parameter, usable as `… IN ${idList('$1')}`. */
  idList(placeholder: string): string;
  /** The value to bind to the placeholder of `idList`. */
  idListValue(ids: readonly string[]): unknown;
  /**
   * A condition on `users` that holds when its e-mail, lower-cased, is the value bound to `placeholder`
   * (already lower-case), written so that the index `users_team_email` serves it after `team_id = …`.
   */
  emailIs(placeholder: string): string;
  /**
   * An aggregate: the group's values of the text `expression`, each followed by a tab, joined by line
   * feeds, in no particular order. A reader checks the lines against `count(*)` and their tabs: a value
   * holding a line feed, or a result cut short (MySQL's `group_concat_max_len`), shows.
   */
  joinedLines(expression: string): string;
}
