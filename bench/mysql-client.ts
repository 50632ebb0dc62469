import { createConnection } from 'mysql2/promise';

/**
 * A fresh database `name` on the MySQL/MariaDB server of `serverUrl` (utf8mb4, binary collation, as
 * docs/configuration.md asks of a store's database) and the URL naming it; `drop` removes it.
 */
export async function createMysqlDatabase(serverUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = () => createConnection(serverUrl.replace(/^mariadb:/, 'mysql:'));
  const run = async (text: string) => {
    const connection = await admin();
    try {
      await connection.query(text);
    } finally {
      await connection.end();
    }
  };
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`not a database name the bench makes: ${name}`);
  await run(`DROP DATABASE IF EXISTS \`${name}\``);
  await run(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS \`${name}\``) };
}
