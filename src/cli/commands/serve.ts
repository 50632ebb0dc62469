import { mintUserToken } from '../../auth/user-token.js';
import { loadConfig, withEphemeralAdminKey } from '../../config/config.js';
import { bannerUserId } from '../../composition/demo-data.js';
import { closeOnSignals, startServer } from '../../composition/server.js';
import { startupBanner } from '../startup-banner.js';
import { missingServingFlags } from '../serving-flags.js';
import { SqliteFileServed } from '../../store/connection/serve-lock.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host serve [--port PORT] [--host HOST]

Runs the service with the configuration of the environment (and .env): the callbacks, /events, the
management API, the console and the background workers, until SIGINT or SIGTERM. On a store without
users outside production it loads the demo company first. --port and --host stand for PORT and HOST
(and win over them). See docs/operations.md.`;

/** `collab-host serve`: runs the service until SIGINT or SIGTERM (pending migrations first, unless MIGRATE_ON_START=false). */
export async function serve(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({ usage: USAGE, options: { port: { type: 'string' }, host: { type: 'string' } } }, args);
  // Checked as the variables are: `--port x` is reported as `PORT must be …`.
  const env = { ...process.env, ...(values.port === undefined ? {} : { PORT: values.port }), ...(values.host === undefined ? {} : { HOST: values.host }) };
  const { config, ephemeralAdminKey } = withEphemeralAdminKey(loadConfig(env));
  const server = await startServer(config).catch((error: unknown) => {
    throw error instanceof SqliteFileServed ? new CliError(error.message) : error;
  });
  closeOnSignals(server, (message) => process.stderr.write(`${message}\n`));
  // Outside production: a user to try the service as, with a fresh token and a curl line.
  const someUser = await bannerUserId(server.store);
  const userId = config.production ? undefined : someUser;
  const user = userId === undefined ? undefined : { id: userId, token: mintUserToken(userId, config.tokenSecret, config.tokenTtlSeconds) };
  const facts = {
    address: server.address,
    seeded: server.seeded,
    directoryLoad: server.directoryLoad,
    hasUsers: someUser !== undefined,
    missingNodeFlags: missingServingFlags(process.execArgv),
  };
  process.stdout.write(startupBanner(config, { ...facts, ...(user ? { user } : {}), ...(ephemeralAdminKey ? { ephemeralAdminKey } : {}) }));
  // Keep running: the signal handlers end the process.
  await new Promise<never>(() => {});
  return 0;
}
