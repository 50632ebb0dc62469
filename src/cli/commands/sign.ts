import { parseArgs } from 'node:util';
import { LICENSE_SCOPE, LICENSE_TTL_SECONDS, mintSignature } from '../../auth/platform-signature.js';
import { loadConfig } from '../../config.js';
import { parseDuration } from '../../duration.js';
import { CliError } from '../cli-error.js';

const USAGE = 'usage: collab-host sign [--file-id F] [--user-id U] [--scope license] [--ttl 240]';
/** The platform refuses a license-scope signature that lives 5 minutes or more. */
const LICENSE_MAX_TTL_SECONDS = 5 * 60 - 1;

/**
 * `collab-host sign …`: prints a platform signature made with APP_ID/APP_SECRET (contracts.md): HS256,
 * `kid` = APP_ID, `iat` now, `exp` = now + ttl seconds (default 240), and the given claims. The
 * signature alone goes to stdout, so `$(collab-host sign --file-id F)` works. With `--file-id F` it opens
 * `GET /admin/files/F` (and only F); with `--user-id U` too, `GET /admin/files/F/by-user-id?userId=U`.
 */
export async function signCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args);
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"\n${USAGE}`);
  const ttlSeconds = values.ttl === undefined ? LICENSE_TTL_SECONDS : parseDuration(values.ttl);
  if (ttlSeconds === undefined || ttlSeconds <= 0) throw new CliError(`--ttl must be a number of seconds such as 240, not "${values.ttl}"`);
  if (values.scope === LICENSE_SCOPE && ttlSeconds > LICENSE_MAX_TTL_SECONDS) {
    throw new CliError(`--ttl must be under 300 seconds with --scope license: the platform refuses longer license signatures`);
  }
  for (const [flag, value] of [['--file-id', values['file-id']], ['--user-id', values['user-id']], ['--scope', values.scope]] as const) {
    if (value === '') throw new CliError(`${flag} must not be empty`);
  }

  const config = loadConfig();
  const signature = mintSignature(
    { appId: config.appId, appSecret: config.appSecret },
    {
      ttlSeconds,
      ...(values['file-id'] === undefined ? {} : { fileId: values['file-id'] }),
      ...(values['user-id'] === undefined ? {} : { userId: values['user-id'] }),
      ...(values.scope === undefined ? {} : { scope: values.scope }),
    },
  );
  process.stdout.write(`${signature}\n`);
  return 0;
}

function parseCommandArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { 'file-id': { type: 'string' }, 'user-id': { type: 'string' }, scope: { type: 'string' }, ttl: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`);
  }
}
