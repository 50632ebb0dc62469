import { createConnection } from 'mysql2/promise';
import pg from 'pg';

/** A session outside collab-host's pools, as a DBA's or another program's: plain SQL statements. */
export interface RawSession {
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
}

export async function rawSession(dialect: 'postgres' | 'mysql', url: string): Promise<RawSession> {
  if (dialect === 'mysql') return createConnection(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}
