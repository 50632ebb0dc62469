import { mintUserToken } from '../../auth/user-token.js';
import { loadConfig } from '../../config/config.js';
import { parseDuration } from '../../shared/duration.js';
import { openDatabase } from '../../store/connection/database.js';
import { SqlDirectory } from '../../store/directory-reads/sql-directory.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs, usageError } from '../command-args.js';

const USAGE = `usage: collab-host token USER_ID [--ttl 2h]

Prints a user token for USER_ID, a user of DATABASE_URL, signed with TOKEN_SECRET.
  --ttl DURATION  lifetime (3600, 90s, 30m, 2h, 7d); default TOKEN_TTL`;

/**
 * `collab-host token USER_ID [--ttl 2h]`: prints a user token (HS256 with TOKEN_SECRET) for a user of
 * DATABASE_URL; the token alone on stdout, so `$(collab-host token u1)` works. Exit 1 when the user
 * does not exist, 2 on a usage error.
 */
export async function tokenCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({ usage: USAGE, options: { ttl: { type: 'string' } }, positionals: { min: 1, max: 1 } }, args);
  const userId = positionals[0]!;

  const config = loadConfig();
  let ttlSeconds = config.tokenTtlSeconds;
  if (values.ttl !== undefined) {
    const parsed = parseDuration(values.ttl);
    if (parsed === undefined || parsed <= 0) throw usageError(`--ttl must be a duration such as 3600, 90s, 30m, 2h or 7d, not "${values.ttl}"`, USAGE);
    ttlSeconds = parsed;
  }

  const store = await openDatabase(config.databaseUrl);
  try {
    const user = await SqlDirectory.over(store).getUser(userId);
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

/** A database URL without its password, for messages. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
