import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error.js';
import { KNOWN_VARIABLES } from './known-variables.js';
import { nearestName } from '../shared/nearest-name.js';

type Env = Record<string, string | undefined>;

/** Several configuration problems at once: the message has one line per problem. */
export class ConfigProblems extends ConfigError {
  override name = 'ConfigProblems';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** At most this many rounds: each sets one variable aside, so this bounds the problems reported. */
const MAX_ROUNDS = 50;

/**
 * Reads the configuration with `read` and, when it fails, keeps reading to find every problem in one start.
 * The validation rules stay where they are (each throws a ConfigError naming its variable first); after a
 * problem its variable is set aside, unset when it was set (its default applies) or given a stand-in value
 * when it was missing (a required one), and `read` runs again on that copy of the environment. A problem
 * naming no variable, or one whose stand-in is refused as well, ends the search. One problem throws it as
 * it was; several throw a ConfigProblems listing them in the order found.
 */
export function readReportingEveryProblem<T>(read: (env: Env) => T, env: Env): T {
  let problem: ConfigError;
  try {
    return read(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problem = error;
  }
  const first = problem;
  const problems: string[] = [];
  const tried = { ...env };
  const setAside = new Set<string>();
  const givenStandIn = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const name = variableNamed(problem.message);
    if (name === undefined || !setAside.has(name)) problems.push(problem.message);
    if (name === undefined) break;
    if (setAside.has(name)) {
      // Unset, the variable is missing where it is required: one stand-in, then nothing new is to be learnt.
      if (givenStandIn.has(name)) break;
      tried[name] = standIn();
      givenStandIn.add(name);
    } else {
      setAside.add(name);
      if (present(tried[name])) delete tried[name];
      else {
        tried[name] = standIn();
        givenStandIn.add(name);
      }
    }
    try {
      read(tried);
      break;
    } catch (error) {
      if (!(error instanceof ConfigError)) break;
      problem = error;
    }
  }
  if (problems.length === 1) throw first;
  throw new ConfigProblems(problems);
}

/** The first known variable a problem names (each rule names its own variable first). */
function variableNamed(message: string): string | undefined {
  for (const match of message.matchAll(/[A-Z][A-Z0-9_]*[A-Z0-9]/g)) {
    if (KNOWN_VARIABLES.has(match[0])) return match[0];
  }
  return undefined;
}

const present = (value: string | undefined) => value !== undefined && value.trim() !== '';

/** A value most rules accept for a required text: long enough for a secret, shaped like an address. */
function standIn(): string {
  return `stand-in-${randomBytes(12).toString('hex')}@example.invalid`;
}

/**
 * Names in the environment (or .env) that are not variables collab-host reads but look like a typo of one:
 * `DATABSE_URL`, `ADMIN_APIKEY`. One line per name, `NAME is not a variable collab-host reads: did you mean
 * DATABASE_URL?`. `fromDotEnv`: the names .env supplied, so the line says where the name is.
 */
export function misspelledVariables(env: Env, fromDotEnv: ReadonlySet<string> = new Set()): string[] {
  const lines: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (KNOWN_VARIABLES.has(name) || !/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    const nearest = nearestName(name, KNOWN_VARIABLES);
    if (nearest === undefined) continue;
    lines.push(`${name}${fromDotEnv.has(name) ? ' (in .env)' : ''} is not a variable collab-host reads: did you mean ${nearest}?`);
  }
  return lines;
}
