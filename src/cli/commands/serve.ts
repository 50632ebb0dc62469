import { mintUserToken } from '../../auth/user-token.js';
import { loadConfig, withEphemeralAdminKey } from '../../config.js';
import { bannerUserId } from '../../demo-data.js';
import { closeOnSignals, startServer } from '../../server.js';
import { startupBanner } from '../../startup-banner.js';
import { SqliteFileServed } from '../../store/sqlite/serve-lock.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host serve

Runs the service with the configuration of the environment (and .env): the callbacks, /events, the
management API, the console and the background workers, until SIGINT or SIGTERM. On a store without
users outside production it loads the demo company first. See docs/operations.md.`;

/** `collab-host serve`: runs the service until SIGINT or SIGTERM (pending migrations first, unless MIGRATE_ON_START=false). */
export async function serve(args: string[]): Promise<number> {
  parseCommandArgs({ usage: USAGE, options: {} }, args);
  const { config, ephemeralAdminKey } = withEphemeralAdminKey(loadConfig());
  const server = await startServer(config).catch((error: unknown) => {
    throw error instanceof SqliteFileServed ? new CliError(error.message) : error;
  });
  closeOnSignals(server, (message) => process.stderr.write(`${message}\n`));
  // Outside production: a user to try the service as, with a fresh token and a curl line.
  const someUser = await bannerUserId(server.store);
  const userId = config.production ? undefined : someUser;
  const user = userId === undefined ? undefined : { id: userId, token: mintUserToken(userId, config.tokenSecret, config.tokenTtlSeconds) };
  const facts = { address: server.address, seeded: server.seeded, hasUsers: someUser !== undefined };
  process.stdout.write(startupBanner(config, { ...facts, ...(user ? { user } : {}), ...(ephemeralAdminKey ? { ephemeralAdminKey } : {}) }));
  // Keep running: the signal handlers end the process.
  await new Promise<never>(() => {});
  return 0;
}
