import { ConfigError, loadDotEnv, misspelledVariables } from '../config/config.js';
import { nearestName } from '../shared/nearest-name.js';
import { CliError } from './cli-error.js';
import { EXIT, HelpRequested } from './command-args.js';
import { packageVersion } from './package-version.js';

/** A command: given its arguments, returns the process exit code. */
type Command = (args: string[]) => Promise<number>;

/** Every command, loaded only when run, so `collab-host token` does not load the server. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'run the service (what npm start runs)', load: async () => (await import('./commands/serve.js')).serve },
  import: { summary: 'load the directory snapshot FILE (upsert by id; --replace: replace everything)', load: async () => (await import('./commands/import.js')).importCommand },
  export: { summary: 'print the directory as a snapshot (--out FILE: also write stored file contents)', load: async () => (await import('./commands/export.js')).exportCommand },
  token: { summary: 'print a user token for USER_ID (--ttl 2h)', load: async () => (await import('./commands/token.js')).tokenCommand },
  sign: { summary: 'print a platform signature (--file-id F --user-id U --scope license --ttl 240)', load: async () => (await import('./commands/sign.js')).signCommand },
  'create-doc': {
    summary: 'create a collaborative document on the platform (--user U --type T [--file-id F] [--name N])',
    load: async () => (await import('./commands/create-doc.js')).createDocCommand,
  },
  check: {
    summary: 'the conformance kit: act as the platform against BASE_URL (--token T [--app-id A --app-secret S] [--json] [--only G,…] [--skip G,…])',
    load: async () => (await import('./commands/check.js')).checkCommand,
  },
  platform: {
    summary: 'call the platform API (create, copy, delete, import, export, history, cells, seats, … ; platform --help lists them)',
    load: async () => (await import('./commands/platform.js')).platformCommand,
  },
  migrate: {
    summary: 'apply the pending database migrations (--status: list applied and pending, change nothing)',
    load: async () => (await import('./commands/migrate.js')).migrateCommand,
  },
  storage: {
    summary: 'file bytes: migrate --to URL [--from URL] [--dry-run] copies and checks them; verify checks every hash',
    load: async () => (await import('./commands/storage.js')).storageCommand,
  },
  events: { summary: 'the event log: reprocess ID | --outcome unprocessed|refused; stats', load: async () => (await import('./commands/events.js')).eventsCommand },
  simulate: {
    summary: 'a local stand-in for the platform API and editor (--port P); simulate push: send one event',
    load: async () => (await import('./commands/simulate.js')).simulateCommand,
  },
  prune: {
    summary: 'remove events, notifications, activity and presence older than their retention windows once (--dry-run)',
    load: async () => (await import('./commands/prune.js')).pruneCommand,
  },
  backup: { summary: 'back up the whole store while it serves: tables, file bytes, manifest (--out DIR)', load: async () => (await import('./commands/backup.js')).backupCommand },
  restore: { summary: 'restore a backup DIR into an empty store (--replace: replace what it holds)', load: async () => (await import('./commands/restore.js')).restoreCommand },
  audit: { summary: 'the audit log: export --since TIME [--until TIME] prints it as NDJSON', load: async () => (await import('./commands/audit.js')).auditCommand },
  sync: { summary: 'one LDAP/AD directory sync (sync ldap [--dry-run] [--incremental])', load: async () => (await import('./commands/sync.js')).syncCommand },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `usage: collab-host <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`collab-host ${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (name === undefined) {
    process.stderr.write(usage());
    return EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    const nearest = nearestCommand(name);
    process.stderr.write(`collab-host: unknown command "${name}"${nearest ? `: did you mean ${nearest}?` : ''}\n\n${usage()}`);
    return EXIT.usage;
  }
  const fromDotEnv = loadDotEnv();
  for (const line of misspelledVariables(process.env, fromDotEnv)) process.stderr.write(`collab-host: ${line}\n`);
  try {
    return await (
      await command.load()
    )(args);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(`${error.usage}\n`);
      return EXIT.ok;
    }
    if (error instanceof ConfigError || error instanceof CliError) {
      process.stderr.write(`${error.message}\n`);
      return error instanceof CliError ? error.exitCode : 1;
    }
    throw error;
  }
}

/** The command a mistyped name most likely meant: the only one it begins, or the nearest by spelling. */
function nearestCommand(name: string): string | undefined {
  const names = Object.keys(COMMANDS);
  const started = names.filter((candidate) => name.length >= 2 && candidate.startsWith(name.toLowerCase()));
  if (started.length === 1) return started[0];
  return nearestName(name, names);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`collab-host: ${error instanceof Error ? error.message : String(error)}\n`);
    // What the command started is closed by now (a failed serve closes its store and server first); a
    // library timer or worker still winding down must not keep a failed command alive.
    process.exit(1);
  },
);
