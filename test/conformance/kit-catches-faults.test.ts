import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CHECKS } from '../../src/conformance/checks/index.js';
import type { Report } from '../../src/conformance/report.js';
import { runChecks } from '../../src/conformance/runner.js';
import { FAKE_ADMIN_KEY, FAKE_APP, startFakeServer, tokenOf, type Fault, type FakeServer } from './fake-callback-server.js';

async function checkFake(faults: Fault[], extra: { credentials?: boolean } = {}): Promise<Report> {
  const server = await startFakeServer(faults);
  try {
    return await runChecks({ baseUrl: server.url, token: tokenOf('u1'), adminKey: FAKE_ADMIN_KEY, ...(extra.credentials === false ? {} : { credentials: FAKE_APP }) });
  } finally {
    await server.close();
  }
}

const failed = (report: Report) => report.results.filter((r) => r.status === 'fail').map((r) => r.id);
const problemsOf = (report: Report, id: string) => report.results.find((r) => r.id === id)?.problems.join('\n') ?? '';
/** The fake server has no share links: the kit skips its guest check, saying why (it needs --guest-token). */
const GUEST_SKIP = 'guests.scope: skip no guest token (give --guest-token, from a share link)';
const EVENT_CHECKS = ALL_CHECKS.filter((check) => check.group === 'events').map((check) => check.id);
const PRODUCTION_CHECKS = ALL_CHECKS.filter((check) => check.group === 'production').map((check) => check.id);

describe('the kit on a correct callback server', () => {
  let report: Report;
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeServer();
    report = await runChecks({ baseUrl: server.url, token: tokenOf('u1'), credentials: FAKE_APP, adminKey: FAKE_ADMIN_KEY });
  });
  afterAll(() => server.close());

  it('runs every check and every one passes', () => {
    expect(report.results.map((r) => `${r.id}: ${r.status} ${r.problems.join('; ')}${r.reason ?? ''}`)).toEqual(
      ALL_CHECKS.map((check) => (check.id === 'guests.scope' ? GUEST_SKIP : `${check.id}: pass `)),
    );
    expect(report.summary).toEqual({ passed: ALL_CHECKS.length - 1, failed: 0, skipped: 1 });
    expect(report.user).toBe('u1');
    expect(report.team).toBe('t1');
  });

  it('pushed every event kind to the server, FileContent and Collaborator signed', () => {
    const kinds = new Set(server.events.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['Collaborator', 'Comment', 'DateMention', 'Discussion', 'FileContent', 'MentionAt', 'Revision', 'System']);
  });
});

describe('the kit names the broken rule', () => {
  const cases: Array<{ fault: Fault; fails: string[]; says: RegExp }> = [
    { fault: 'time-with-milliseconds', fails: ['time.format'], says: /createdAt "2024-03-01T08:00:00\.000Z" is not YYYY-MM-DDThh:mm:ssZ/ },
    { fault: 'user-without-team-guid', fails: ['team.team-guid'], says: /GET \/users\/current\/info returns no teamGuid/ },
    { fault: 'editable-without-copyable', fails: ['files.editable-copyable'], says: /\(f4\): editable without copyable/ },
    { fault: 'wrong-is-manager', fails: ['collaborators.is-manager'], says: /collaborator u2 has isManager true but manageable false/ },
    {
      fault: 'members-paged-from-0',
      fails: ['team.members-paging', 'departments.members-paging'],
      says: /the first page is missing; page 1 must be the first page/,
    },
    { fault: 'wrong-page-count', fails: ['search.page-wrapper'], says: /pageCount must be ceil\(count \/ pageSize\)/ },
    { fault: 'admin-accepts-unsigned', fails: ['signed.unsigned-refused'], says: /GET \/admin\/files\/f1 without any credential answered 200/ },
    { fault: 'events-answer-500', fails: [...EVENT_CHECKS, ...PRODUCTION_CHECKS], says: /Comment create: answered 500 .*expected 200 \{\}/ },
    {
      fault: 'events-refuse-production',
      fails: ['production.date-mention', 'production.file-content'],
      says: /DateMention create: answered 400 .*expected 200: the platform does not retry, so this event is lost/,
    },
    { fault: 'events-not-stored', fails: PRODUCTION_CHECKS, says: /Comment like: acknowledged, but not in GET \/api\/events\?kind=Comment as sent/ },
  ];

  for (const { fault, fails, says } of cases) {
    it(`${fault}: fails ${fails.join(', ')} and nothing else`, async () => {
      const report = await checkFake([fault]);
      expect(failed(report)).toEqual(fails);
      expect(problemsOf(report, fails[0] as string)).toMatch(says);
      expect(report.summary.failed).toBe(fails.length);
      expect(report.results.filter((r) => r.status === 'skip').map((r) => r.id)).toEqual(['guests.scope']);
    });
  }
});

describe('the kit without app credentials', () => {
  it('skips the signed checks and signed events, saying why, and still catches a wrong isManager through the creator and the user', async () => {
    const report = await checkFake(['wrong-is-manager'], { credentials: false });
    const skipped = report.results.filter((r) => r.status === 'skip');
    expect(skipped.map((r) => r.id)).toEqual([
      'guests.scope',
      'signed.admin-file',
      'signed.by-user-id',
      'signed.file-url',
      'signed.unsigned-refused',
      'signed.forged-refused',
      'events.file-content',
      'events.collaborator',
      'production.file-content',
      'production.collaborator',
    ]);
    expect(skipped[1]?.reason).toBe('needs --app-id and --app-secret');
    // u1 is an editor of f4 and sees its own manageable: false there, yet is listed as a manager.
    expect(failed(report)).toEqual(['collaborators.is-manager']);
    expect(problemsOf(report, 'collaborators.is-manager')).toMatch(/file f4: collaborator u1 has isManager true but manageable false \(GET \/files\/\{fileId\} as that user\)/);
  });
});

describe('the kit against nothing', () => {
  it('reports discovery as the one failure when the token is refused, and skips the rest', async () => {
    const server = await startFakeServer();
    try {
      const report = await runChecks({ baseUrl: server.url, token: 'not-a-token', only: ['users'] });
      expect(failed(report)).toEqual(['discovery.current-user']);
      expect(problemsOf(report, 'discovery.current-user')).toMatch(/GET \/users\/current\/info answered 401/);
      expect(report.results.filter((r) => r.status === 'skip').map((r) => r.id)).toEqual(['users.current-info', 'users.get', 'users.batch', 'users.watermark']);
    } finally {
      await server.close();
    }
  });

  it('reports a server that does not answer as a failure, not a hang', async () => {
    const report = await runChecks({ baseUrl: 'http://127.0.0.1:1', token: 'x', only: ['users'], timeoutMs: 2000 });
    expect(failed(report)).toEqual(['discovery.current-user']);
    expect(problemsOf(report, 'discovery.current-user')).toMatch(/GET \/users\/current\/info: /);
  });
});
