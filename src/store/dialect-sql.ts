/**
 * The SQL that differs between the two dialects, for the read side of the store (store/sqlite/ and
 * store/postgres/ hold the two implementations under the same file names).
 */
export interface DialectSql {
  readonly name: 'sqlite' | 'postgres';
  /** A list of ids bound as one parameter, usable as `… IN ${idList('$1')}`. */
  idList(placeholder: string): string;
  /** The value to bind to the placeholder of `idList`. */
  idListValue(ids: readonly string[]): unknown;
}
