import { mintUserToken } from '../../auth/user-token.js';
import { loadConfig } from '../../config.js';
import { bannerUserId } from '../../demo-data.js';
import { closeOnSignals, startServer } from '../../server.js';
import { startupBanner } from '../../startup-banner.js';

/** `collab-host serve`: runs the service until SIGINT or SIGTERM. */
export async function serve(_args: string[]): Promise<number> {
  const config = loadConfig();
  const server = await startServer(config);
  closeOnSignals(server, (message) => process.stderr.write(`${message}\n`));
  // Outside production: a user to try the service as, with a fresh token and a curl line.
  const userId = config.production ? undefined : await bannerUserId(server.store);
  const user = userId === undefined ? undefined : { id: userId, token: mintUserToken(userId, config.tokenSecret, config.tokenTtlSeconds) };
  process.stdout.write(startupBanner(config, { address: server.address, seeded: server.seeded, ...(user ? { user } : {}) }));
  // Keep running: the signal handlers end the process.
  await new Promise<never>(() => {});
  return 0;
}
