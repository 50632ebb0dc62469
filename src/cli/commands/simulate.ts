import { parseArgs } from 'node:util';
import { loadConfig } from '../../config.js';
import { EVENT_ACTIONS, EVENT_KINDS, type EventKind } from '../../conformance/event-bodies.js';
import { brandHeaders } from '../../conformance/headers.js';
import { callHttp, HttpFailure } from '../../conformance/http-client.js';
import { isRecord } from '../../conformance/jwt.js';
import { PushError, pushEvent } from '../../conformance/push.js';
import { startSimulator } from '../../conformance/simulator/server.js';
import { CliError } from '../cli-error.js';

const USAGE = `usage: collab-host simulate [--port 4000] [--host 127.0.0.1] [--endpoint-url URL] [--app-id A --app-secret S]
       collab-host simulate push --to BASE_URL --kind KIND [--action A] --file-id F [--user-id U] [--token T] [--app-id A --app-secret S] [--brand B]
kinds: ${EVENT_KINDS.map((kind) => `${kind} (${EVENT_ACTIONS[kind].join('|')})`).join(', ')}`;

/** Runs the argument parser, turning its complaint into a usage error. */
function parse<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`, 2);
  }
}

/** The application's credentials: the flags, else APP_ID / APP_SECRET (as the service reads them). */
function credentialsFrom(values: Record<string, unknown>): { appId: string; appSecret: string } {
  const appId = values['app-id'];
  const appSecret = values['app-secret'];
  if ((appId === undefined) !== (appSecret === undefined)) throw new CliError('--app-id and --app-secret go together', 2);
  if (typeof appId === 'string' && typeof appSecret === 'string') return { appId, appSecret };
  const config = loadConfig();
  return { appId: config.appId, appSecret: config.appSecret };
}

/**
 * `collab-host simulate`: a local stand-in for the platform (its create-document API, an editor page that
 * makes the platform's open-file callbacks); `collab-host simulate push …` pushes one event as the platform.
 */
export async function simulateCommand(args: string[]): Promise<number> {
  if (args[0] === 'push') return push(args.slice(1));
  const options = {
    port: { type: 'string' },
    host: { type: 'string' },
    'endpoint-url': { type: 'string' },
    'app-id': { type: 'string' },
    'app-secret': { type: 'string' },
  } as const;
  const { values, positionals } = parse(() => parseArgs({ args, options, allowPositionals: true, strict: true }));
  if (positionals.length > 0) throw new CliError(USAGE, 2);
  const port = values.port === undefined ? 4000 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--port must be a number from 0 to 65535', 2);
  const config = loadConfig();
  const endpointUrl = values['endpoint-url'] ?? config.publicUrl;
  const credentials = credentialsFrom(values);
  const simulator = await startSimulator({ port, host: values.host ?? '127.0.0.1', credentials, endpointUrl, brand: config.headerBrand });
  process.stdout.write(
    `collab-host simulator listening on ${simulator.url} (app ${credentials.appId}, callbacks to ${endpointUrl})\n` +
      `  create documents against it:  PLATFORM_API_URL=${simulator.url} npx collab-host create-doc --user U --type documentPro\n` +
      `  open one in the editor page:  ${simulator.url}/editor?fileId=F\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await simulator.close();
  return 0;
}

async function push(args: string[]): Promise<number> {
  const options = {
    to: { type: 'string' },
    kind: { type: 'string' },
    action: { type: 'string' },
    'file-id': { type: 'string' },
    'user-id': { type: 'string' },
    token: { type: 'string' },
    'app-id': { type: 'string' },
    'app-secret': { type: 'string' },
    brand: { type: 'string' },
  } as const;
  const { values, positionals } = parse(() => parseArgs({ args, options, allowPositionals: true, strict: true }));
  if (positionals.length > 0 || !values.to || !values.kind || !values['file-id']) throw new CliError(USAGE, 2);
  if (!/^https?:\/\//.test(values.to)) throw new CliError(`--to must start with http(s)://, not "${values.to}"`, 2);
  const kind = EVENT_KINDS.find((known) => known.toLowerCase() === values.kind?.toLowerCase()) as EventKind | undefined;
  if (!kind) throw new CliError(`unknown --kind "${values.kind}"; kinds are ${EVENT_KINDS.join(', ')}`, 2);
  const action = values.action ?? (EVENT_ACTIONS[kind][0] as string);
  if (!EVENT_ACTIONS[kind].includes(action)) throw new CliError(`--action for ${kind} is one of ${EVENT_ACTIONS[kind].join(', ')}`, 2);
  const brand = values.brand || process.env.HEADER_BRAND || 'Platform';
  const userId = values['user-id'] ?? (await userOfToken(values.to, values.token, brand));
  try {
    const answer = await pushEvent({
      to: values.to,
      kind,
      action,
      subject: { fileId: values['file-id'], userId },
      ...(values.token !== undefined ? { token: values.token } : {}),
      credentials: credentialsFrom(values),
      brand,
    });
    process.stdout.write(`${kind} ${action} -> ${answer.status} ${answer.text}\n`);
    return answer.status === 200 && isRecord(answer.body) && Object.keys(answer.body).length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof PushError || error instanceof HttpFailure) throw new CliError(error.message);
    throw error;
  }
}

/** The acting user when --user-id is not given: whoever the token belongs to, asked of the server itself. */
async function userOfToken(base: string, token: string | undefined, brand: string): Promise<string> {
  if (token === undefined) throw new CliError('give --user-id (or --token, whose user is then asked of the server)', 2);
  try {
    const answer = await callHttp(base, '/users/current/info', { headers: { [brandHeaders(brand).token]: token } });
    if (answer.status === 200 && isRecord(answer.body) && typeof answer.body.id === 'string') return answer.body.id;
    throw new CliError(`GET /users/current/info answered ${answer.status}: give --user-id`);
  } catch (error) {
    if (error instanceof HttpFailure) throw new CliError(error.message);
    throw error;
  }
}
