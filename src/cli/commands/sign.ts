import { LICENSE_SCOPE, LICENSE_TTL_SECONDS, mintSignature } from '../../auth/platform-signature.js';
import { loadConfig } from '../../config/config.js';
import { parseDuration } from '../../shared/duration.js';
import { parseCommandArgs, usageError } from '../command-args.js';

const USAGE = `usage: collab-host sign [--file-id F] [--user-id U] [--scope license] [--ttl 240]

Prints a platform signature made with APP_ID/APP_SECRET (HS256, kid = APP_ID).
  --file-id F   bind it to file F (GET /admin/files/F and nothing else)
  --user-id U   bind it to user U too (GET /admin/files/F/by-user-id?userId=U)
  --scope license  a license-scope signature (the platform's license and seat calls; at most 299 seconds)
  --ttl SECONDS lifetime, default 240`;
/** The platform refuses a license-scope signature that lives 5 minutes or more. */
const LICENSE_MAX_TTL_SECONDS = 5 * 60 - 1;

/**
 * `collab-host sign …`: prints a platform signature made with APP_ID/APP_SECRET (contracts.md): HS256,
 * `kid` = APP_ID, `iat` now, `exp` = now + ttl seconds (default 240), and the given claims. The
 * signature alone goes to stdout, so `$(collab-host sign --file-id F)` works. With `--file-id F` it opens
 * `GET /admin/files/F` (and only F); with `--user-id U` too, `GET /admin/files/F/by-user-id?userId=U`.
 */
export async function signCommand(args: string[]): Promise<number> {
  const options = { 'file-id': { type: 'string' }, 'user-id': { type: 'string' }, scope: { type: 'string' }, ttl: { type: 'string' } } as const;
  const { values } = parseCommandArgs({ usage: USAGE, options }, args);
  const ttlSeconds = values.ttl === undefined ? LICENSE_TTL_SECONDS : parseDuration(values.ttl);
  if (ttlSeconds === undefined || ttlSeconds <= 0) throw usageError(`--ttl must be a number of seconds such as 240, not "${values.ttl}"`, USAGE);
  if (values.scope === LICENSE_SCOPE && ttlSeconds > LICENSE_MAX_TTL_SECONDS) {
    throw usageError(`--ttl must be under 300 seconds with --scope license: the platform refuses longer license signatures`, USAGE);
  }
  // The platform knows one scope: `license`. Any other would be signed and then refused everywhere.
  if (values.scope !== undefined && values.scope !== LICENSE_SCOPE) throw usageError(`--scope must be ${LICENSE_SCOPE}, not "${values.scope}"`, USAGE);
  for (const [flag, value] of [
    ['--file-id', values['file-id']],
    ['--user-id', values['user-id']],
  ] as const) {
    if (value === '') throw usageError(`${flag} must not be empty`, USAGE);
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
