/** How a store is opened, as far as its dialect's connections are concerned (src/store/connection/database.ts). */
export interface ConnectOptions {
  /** PostgreSQL only: the schema to work in (tests use one fresh schema per suite). */
  schema?: string;
  /** PostgreSQL and MySQL: pool size. */
  poolSize?: number;
  /**
   * PostgreSQL and MySQL: told of an error on an idle pooled connection (the server went away). The pool
   * drops that connection and opens a new one when next needed; without this listener the driver would end
   * the process.
   */
  onConnectionError?: (error: Error) => void;
}
