import pg from 'pg';

/** Runs `work` with one PostgreSQL connection to `url`, closed afterwards (the bench and the scan scripts). */
export async function withPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
