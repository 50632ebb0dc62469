import { parseArgs } from 'node:util';
import { formatReport } from '../../conformance/report.js';
import { runChecks, SelectionError } from '../../conformance/runner.js';
import { CliError } from '../cli-error.js';

const USAGE =
  'usage: collab-host check BASE_URL --token T [--app-id A --app-secret S] [--file-id F] [--json] [--only G,…] [--skip G,…] [--brand Platform] [--timeout 10000]';

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
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
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
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  const baseUrl = positionals[0];
  if (positionals.length !== 1 || baseUrl === undefined) throw new CliError(USAGE, 2);
  if (!/^https?:\/\//.test(baseUrl)) throw new CliError(`BASE_URL must start with http(s)://, not "${baseUrl}"`, 2);
  if (!values.token) throw new CliError(`--token is required: a user token the server accepts\n${USAGE}`, 2);
  const appId = values['app-id'];
  const appSecret = values['app-secret'];
  if ((appId === undefined) !== (appSecret === undefined)) throw new CliError('--app-id and --app-secret go together', 2);
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) throw new CliError('--timeout must be a number of milliseconds', 2);

  let report;
  try {
    report = await runChecks({
      baseUrl,
      token: values.token,
      ...(appId !== undefined && appSecret !== undefined ? { credentials: { appId, appSecret } } : {}),
      ...(values['file-id'] !== undefined ? { fileId: values['file-id'] } : {}),
      brand: values.brand || process.env.HEADER_BRAND || 'Platform',
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      only: list(values.only),
      skip: list(values.skip),
    });
  } catch (error) {
    if (error instanceof SelectionError) throw new CliError(error.message, 2);
    throw error;
  }
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.summary.failed === 0 ? 0 : 1;
}
