import { loadConfig } from '../../config/config.js';
import { EVENT_ACTIONS, EVENT_KINDS, type EventKind } from '../../conformance/event-bodies.js';
import { PRODUCTION_VARIANTS } from '../../conformance/production-bodies.js';
import { brandHeaders } from '../../conformance/headers.js';
import { callHttp, HttpFailure } from '../../conformance/http-client.js';
import { isRecord } from '../../conformance/jwt.js';
import { PushError, pushEvent } from '../../conformance/push.js';
import { startSimulator } from '../../conformance/simulator/server.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs, usageError } from '../command-args.js';

const USAGE = `usage: collab-host simulate [--port 4000] [--host 127.0.0.1] [--endpoint-url URL] [--app-id A --app-secret S] [--member-limit 100]
       collab-host simulate push --to BASE_URL --kind KIND [--action A] [--shape document|production] --file-id F [--user-id U] [--token T] [--app-id A --app-secret S] [--brand B]
kinds and actions (document shape, interface part 6): ${EVENT_KINDS.map((kind) => `${kind} (${EVENT_ACTIONS[kind].join('|')})`).join(', ')}
production shape (platform-api.md 5): ${EVENT_KINDS.map((kind) => `${kind} (${PRODUCTION_VARIANTS[kind].join('|')})`).join(', ')}`;

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
    'member-limit': { type: 'string' },
  } as const;
  const { values } = parseCommandArgs({ usage: USAGE, options }, args);
  const port = values.port === undefined ? 4000 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError('--port must be a number from 0 to 65535', USAGE);
  const memberLimit = values['member-limit'] === undefined ? undefined : Number(values['member-limit']);
  if (memberLimit !== undefined && (!Number.isInteger(memberLimit) || memberLimit < 0)) throw usageError('--member-limit must be a whole number', USAGE);
  const config = loadConfig();
  const endpointUrl = values['endpoint-url'] ?? config.publicUrl;
  const credentials = credentialsFrom(values);
  const simulator = await startSimulator({
    port,
    host: values.host ?? '127.0.0.1',
    credentials,
    endpointUrl,
    brand: config.headerBrand,
    ...(memberLimit === undefined ? {} : { memberLimit }),
  });
  process.stdout.write(
    `collab-host simulator listening on ${simulator.url} (app ${credentials.appId}, callbacks to ${endpointUrl})\n` +
      `  create documents against it:  PLATFORM_API_URL=${simulator.url} npx collab-host create-doc --user U --type documentPro\n` +
      `  call its API:                 PLATFORM_API_URL=${simulator.url} npx collab-host platform --help\n` +
      `  open one in the editor page:  ${simulator.url}/editor?fileId=F&token=T   (T: the user token serve printed, $TOKEN after its export line)\n`,
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
    shape: { type: 'string' },
  } as const;
  const { values } = parseCommandArgs({ usage: USAGE, options }, args);
  if (!values.to || !values.kind || !values['file-id']) throw usageError('--to, --kind and --file-id are required', USAGE);
  if (!/^https?:\/\//.test(values.to)) throw usageError(`--to must start with http(s)://, not "${values.to}"`, USAGE);
  const kind = EVENT_KINDS.find((known) => known.toLowerCase() === values.kind?.toLowerCase()) as EventKind | undefined;
  if (!kind) throw usageError(`unknown --kind "${values.kind}"; kinds are ${EVENT_KINDS.join(', ')}`, USAGE);
  const shape = values.shape ?? 'document';
  if (shape !== 'document' && shape !== 'production') throw usageError('--shape must be document or production', USAGE);
  const actions = shape === 'production' ? PRODUCTION_VARIANTS[kind] : EVENT_ACTIONS[kind];
  const action = values.action ?? (actions[0] as string);
  if (!actions.includes(action)) throw usageError(`--action for ${kind} (${shape} shape) is one of ${actions.join(', ')}`, USAGE);
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
      shape,
    });
    process.stdout.write(`${kind} ${action}${shape === 'production' ? ' (production)' : ''} -> ${answer.status} ${answer.text}\n`);
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
