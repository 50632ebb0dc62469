import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.js';

/** Exit codes of every command: 0 done (and `--help`), 1 a failure, 2 a usage error. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Thrown by `parseCommandArgs` for `--help`: the command prints its usage and exits 0. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
  constructor(readonly usage: string) {
    super(usage);
  }
}

/** A usage error: the message, then the usage, exit 2. */
export function usageError(message: string, usage: string): CliError {
  return new CliError(`${message}\n${usage}`, EXIT.usage);
}

export interface CommandSpec<O extends NonNullable<ParseArgsConfig['options']>> {
  /** The whole usage text, first line `usage: collab-host …`; printed by `--help` and after usage errors. */
  usage: string;
  options: O;
  /** How many positionals the command takes (default: none). */
  positionals?: { min: number; max: number };
}

/** What `parseCommandArgs` returns: node:util's `parseArgs` result for the command's options (named, so the build can declare it). */
export type ParsedCommandArgs<O extends NonNullable<ParseArgsConfig['options']>> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * Parses a command's arguments the one way every command does: `--help`/`-h` anywhere prints the usage
 * (exit 0, nothing else runs), an unknown option, a missing value or a wrong number of positionals is a
 * usage error (exit 2) naming what was wrong.
 */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(spec: CommandSpec<O>, args: readonly string[]): ParsedCommandArgs<O> {
  const beforeSeparator = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (beforeSeparator.includes('--help') || beforeSeparator.includes('-h')) throw new HelpRequested(spec.usage);
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: spec.options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(oneLine((error as Error).message), spec.usage);
  }
  const { min, max } = spec.positionals ?? { min: 0, max: 0 };
  const count = parsed.positionals.length;
  if (count < min) throw usageError(min === max ? `expected ${min} argument${min === 1 ? '' : 's'}, got ${count}` : `expected at least ${min} arguments, got ${count}`, spec.usage);
  if (count > max) throw usageError(`unexpected argument "${parsed.positionals[max]}"`, spec.usage);
  return parsed;
}

/** Node's parser messages carry a hint on a second line; the first says what was wrong. */
function oneLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
