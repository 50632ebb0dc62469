import { excerpt, type HttpAnswer } from './http-client.js';
import type { AppCredentials } from './jwt.js';
import type { Discovered } from './discovery.js';
import type { Probe } from './probe.js';
import { problemsOf, type Shape } from './shapes.js';

/** One rule of the interface, checked over HTTP. */
export interface Check {
  /** `group.name`, stable: reports, --only/--skip and tests name checks by it. */
  id: string;
  group: string;
  /** The interface section it enforces. */
  section: string;
  /** What must hold, in one line. */
  title: string;
  run(context: CheckContext): Promise<void>;
}

/** Thrown by `skip`: the check could not run here (no credentials, nothing to look at). */
export class SkipCheck extends Error {
  override name = 'SkipCheck';
}

/** What a check works with, and where it writes what it found wrong. */
export class CheckContext {
  readonly problems: string[] = [];

  constructor(
    readonly probe: Probe,
    readonly found: Discovered,
  ) {}

  fail(problem: string): void {
    this.problems.push(problem);
  }

  skip(reason: string): never {
    throw new SkipCheck(reason);
  }

  /** Adds the shape's problems; true when there were none. */
  shape(shape: Shape, value: unknown, where: string): boolean {
    const problems = problemsOf(shape, value, where);
    this.problems.push(...problems);
    return problems.length === 0;
  }

  /** The JSON body of a 200 answer; anything else is a problem, and undefined comes back. */
  ok(answer: HttpAnswer): unknown {
    if (answer.status !== 200) {
      this.fail(`${answer.method} ${answer.path} answered ${answer.status}${excerpt(answer.text)}`);
      return undefined;
    }
    if (answer.body === undefined) {
      this.fail(`${answer.method} ${answer.path} answered 200 without a JSON body${excerpt(answer.text)}`);
      return undefined;
    }
    return answer.body;
  }

  /** The application credentials, or a skip saying they are needed. */
  credentials(): AppCredentials {
    const credentials = this.probe.options.credentials;
    if (!credentials) this.skip('needs --app-id and --app-secret');
    return credentials;
  }

  /** The collaborative document under test, or a skip. */
  fileId(): string {
    if (this.found.fileId === undefined) this.skip('no collaborative document found: give one with --file-id');
    return this.found.fileId;
  }

  teamId(): string {
    if (this.found.teamId === undefined) this.skip('the current user has no team (no teamGuid, no GET /users/current/team)');
    return this.found.teamId;
  }
}
