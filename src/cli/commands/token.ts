import { parseArgs } from 'node:util';
import { mintUserToken } from '../../auth/user-token.js';
import { loadConfig } from '../../config.js';
import { parseDuration } from '../../duration.js';
import { openDatabase } from '../../store/database.js';
import { CliError } from '../cli-error.js';

const USAGE = 'usage: collab-host token USER_ID [--ttl 2h]';

/**
 * `collab-host token USER_ID [--ttl 2h]`: prints a user token (HS256 with TOKEN_SECRET) for a user of
 * DATABASE_URL; the token alone on stdout, so `$(collab-host token u1)` works. Exit 1 when the user
 * does not exist.
 */
export async function tokenCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args);
  if (positionals.length !== 1) throw new CliError(USAGE);
  const userId = positionals[0]!;

  const config = loadConfig();
  let ttlSeconds = config.tokenTtlSeconds;
  if (values.ttl !== undefined) {
    const parsed = parseDuration(values.ttl);
    if (parsed === undefined || parsed <= 0) throw new CliError(`--ttl must be a duration such as 3600, 90s, 30m, 2h or 7d, not "${values.ttl}"`);
    ttlSeconds = parsed;
  }

  const store = await openDatabase(config.databaseUrl);
  try {
    const user = await store.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!user) throw new CliError(`user "${userId}" does not exist (DATABASE_URL=${redactUrl(config.databaseUrl)})`);
  } finally {
    await store.close();
  }

  if (config.tokenSecretIsEphemeral) {
    process.stderr.write(
      'warning: TOKEN_SECRET is not set, so this token is signed with a throw-away key and no running server will accept it; ' +
        'set TOKEN_SECRET (e.g. in .env) for both the server and this command\n',
    );
  }
  process.stdout.write(`${mintUserToken(userId, config.tokenSecret, ttlSeconds)}\n`);
  return 0;
}

function parseCommandArgs(args: string[]) {
  try {
    return parseArgs({ args, options: { ttl: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`);
  }
}

/** A database URL without its password, for messages. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
