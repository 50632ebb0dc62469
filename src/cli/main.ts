import { ConfigError, loadDotEnv } from '../config.js';
import { CliError } from './cli-error.js';

/** A command: given its arguments, returns the process exit code. */
type Command = (args: string[]) => Promise<number>;

/** Every command, loaded only when run, so `collab-host token` does not load the server. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'run the service (what npm start runs)', load: async () => (await import('./commands/serve.js')).serve },
  import: { summary: 'load the directory snapshot FILE (upsert by id; --replace: replace everything)', load: async () => (await import('./commands/import.js')).importCommand },
  export: { summary: 'print the directory as a snapshot (--out FILE: also write stored file contents)', load: async () => (await import('./commands/export.js')).exportCommand },
  token: { summary: 'print a user token for USER_ID (--ttl 2h)', load: async () => (await import('./commands/token.js')).tokenCommand },
  sign: { summary: 'print a platform signature (--file-id F --user-id U --scope license --ttl 240)', load: async () => (await import('./commands/sign.js')).signCommand },
  'create-doc': { summary: 'create a collaborative document on the platform (--user U --type T [--file-id F] [--name N])', load: async () => (await import('./commands/create-doc.js')).createDocCommand },
  check: { summary: 'the conformance kit: act as the platform against BASE_URL (--token T [--app-id A --app-secret S] [--json] [--only G,…] [--skip G,…])', load: async () => (await import('./commands/check.js')).checkCommand },
  simulate: { summary: 'a local stand-in for the platform API and editor (--port P); simulate push: send one event', load: async () => (await import('./commands/simulate.js')).simulateCommand },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `usage: collab-host <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`collab-host: unknown command "${name}"\n\n${usage()}`);
    return 1;
  }
  loadDotEnv();
  try {
    return await (await command.load())(args);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof CliError) {
      process.stderr.write(`${error.message}\n`);
      return error instanceof CliError ? error.exitCode : 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`collab-host: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
