import { formatReport } from '../../conformance/report.js';
import { runChecks, SelectionError } from '../../conformance/runner.js';
import { parseCommandArgs, usageError } from '../command-args.js';

const USAGE =
  'usage: collab-host check BASE_URL --token T [--app-id A --app-secret S] [--file-id F] [--json] [--only G,…] [--skip G,…] [--brand Platform] [--timeout 10000] [--admin-key K] [--guest-token G]';

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/**
 * `collab-host check BASE_URL --token T …`: the conformance kit. Acts as the platform against any callback
 * server and prints the report (or `--json`). Exit 0 when nothing failed, 1 when a check failed, 2 on a
 * usage error.
 */
export async function checkCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      usage: USAGE,
      options: {
        token: { type: 'string' },
        'app-id': { type: 'string' },
        'app-secret': { type: 'string' },
        'file-id': { type: 'string' },
        json: { type: 'boolean', default: false },
        only: { type: 'string' },
        skip: { type: 'string' },
        brand: { type: 'string' },
        timeout: { type: 'string' },
        'admin-key': { type: 'string' },
        'guest-token': { type: 'string' },
      },
      positionals: { min: 1, max: 1 },
    },
    args,
  );
  const baseUrl = positionals[0]!;
  if (!/^https?:\/\//.test(baseUrl)) throw usageError(`BASE_URL must start with http(s)://, not "${baseUrl}"`, USAGE);
  if (!values.token) throw usageError('--token is required: a user token the server accepts', USAGE);
  const appId = values['app-id'];
  const appSecret = values['app-secret'];
  if ((appId === undefined) !== (appSecret === undefined)) throw usageError('--app-id and --app-secret go together', USAGE);
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) throw usageError('--timeout must be a number of milliseconds', USAGE);

  let report;
  try {
    report = await runChecks({
      baseUrl,
      token: values.token,
      ...(appId !== undefined && appSecret !== undefined ? { credentials: { appId, appSecret } } : {}),
      ...(values['file-id'] !== undefined ? { fileId: values['file-id'] } : {}),
      brand: values.brand || process.env.HEADER_BRAND || 'Platform',
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(values['admin-key'] ? { adminKey: values['admin-key'] } : {}),
      ...(values['guest-token'] ? { guestToken: values['guest-token'] } : {}),
      only: list(values.only),
      skip: list(values.skip),
    });
  } catch (error) {
    if (error instanceof SelectionError) throw usageError(error.message, USAGE);
    throw error;
  }
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.summary.failed === 0 ? 0 : 1;
}
