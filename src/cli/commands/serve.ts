import { loadConfig } from '../../config.js';
import { closeOnSignals, startServer } from '../../server.js';

/** `collab-host serve`: runs the service until SIGINT or SIGTERM. */
export async function serve(_args: string[]): Promise<number> {
  const config = loadConfig();
  const server = await startServer(config);
  closeOnSignals(server, (message) => process.stderr.write(`${message}\n`));
  process.stdout.write(`collab-host listening on ${server.address}\n`);
  // Keep running: the signal handlers end the process.
  await new Promise<never>(() => {});
  return 0;
}
