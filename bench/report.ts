import type { EventLag } from './event-lag.js';
import type { RouteFigures } from './load.js';
import type { WriteSeenElsewhere } from './write-seen-elsewhere.js';

/** A route of the main table: autocannon, `connections` connections, one route at a time. */
export interface RouteResult {
  route: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ratioToCeiling: number;
  non2xx: number;
  errors: number;
  /** The serving process's CPU time per request in the measured run. */
  serverCpuMsPerRequest?: number;
}

/** An events run: what was acknowledged, what it cost, and how far behind the effects were. */
export interface EventRun {
  route: string;
  perSecond: number;
  ratioToCeiling: number;
  serverCpuMs?: number;
  lag: EventLag;
}

/** Users created through SCIM, as an identity provider's first push. */
export interface ScimRun {
  /** Created (2xx). */
  users: number;
  /** Meant to be created. */
  target: number;
  seconds: number;
  /** Stopped at the run's time budget before `target` requests were answered. */
  stopped: boolean;
  perSecond: number;
  p99Ms: number;
  serverCpuMs: number;
  non2xx: number;
}

/** From spawning `collab-host serve` to `/readyz` 200 (the directory in memory). */
export interface StartUp {
  readyMs: number;
  /** The load time the banner's `directory in memory: … loaded in N ms` line says. */
  directoryLoadMs?: number;
  bannerLine?: string;
}

export interface StoreReport {
  store: string;
  startup?: StartUp;
  /** Steps that failed, hung past their bound or were skipped, each saying which and why. */
  problems: string[];
  importSeconds: number;
  /** The same snapshot imported again over itself (`--replace`, nothing changes). */
  reimportSeconds: number;
  residentMemoryMb: number;
  peakMemoryMb: number;
  routes: RouteResult[];
  openLoop: Array<RouteFigures & { ratePerSecond: number }>;
  mixed: Array<RouteFigures & { share: number }>;
  /** GET /api/events/stats after the runs, or why it is not there. */
  effectLag: string;
  /** The events runs with their effect lag (read from the store). */
  eventRuns: EventRun[];
  scim?: ScimRun;
  /** PostgreSQL and MySQL: how soon a directory write through one instance is seen on another. */
  writeSeenElsewhere?: WriteSeenElsewhere;
}

export interface ReportHeader {
  users: number;
  departments: number;
  files: number;
  connections: number;
  duration: number;
  warmup: number;
}

/** The Markdown of a run, as bench/README.md shows it. */
export function renderMarkdown(header: ReportHeader, ceiling: RouteResult, reports: readonly StoreReport[]): string {
  const lines: string[] = [];
  lines.push(
    `Company: ${header.users} users, ${header.departments} departments, ${header.files} files; ${header.connections} connections, ` +
      `${header.duration} s per route after ${header.warmup} s warm-up.`,
  );
  lines.push('');
  lines.push('| store | route | req/s | p50 ms | p99 ms | × ceiling | server CPU ms/req | non-2xx | errors |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  lines.push(row('—', ceiling));
  for (const report of reports) for (const route of report.routes) lines.push(row(report.store, route));

  if (reports.some((report) => report.openLoop.length > 0)) {
    lines.push('');
    lines.push('Open loop (requests start on schedule whatever the answers do; latency from when each was due):');
    lines.push('');
    lines.push('| store | run | rate | answered/s | p50 ms | p99 ms | non-2xx | errors |');
    lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const report of reports) {
      for (const run of report.openLoop) {
        lines.push(
          `| ${report.store} | ${run.route} | ${run.ratePerSecond}/s | ${run.requestsPerSecond.toFixed(0)} | ${run.p50Ms} | ${run.p99Ms} | ${non2xx(run)} | ${run.errors} |`,
        );
      }
    }
  }

  if (reports.some((report) => report.mixed.length > 0)) {
    lines.push('');
    lines.push(`Mixed run (${header.connections} connections, every request picks its route by share, all at once):`);
    lines.push('');
    lines.push('| store | route | share | req/s | p50 ms | p99 ms | non-2xx | errors |');
    lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const report of reports) {
      for (const route of report.mixed) {
        lines.push(
          `| ${report.store} | ${route.route} | ${route.share}% | ${route.requestsPerSecond.toFixed(0)} | ${route.p50Ms} | ${route.p99Ms} | ${non2xx(route)} | ${route.errors} |`,
        );
      }
    }
  }

  if (reports.some((report) => report.eventRuns.length > 0 || report.scim)) {
    lines.push('');
    lines.push(
      `Writes: events acknowledged and their effect lag (from acknowledgement to effects, every event of the run; waiting: the log's pending events ${5} s after the load stopped), and SCIM creates:`,
    );
    lines.push('');
    lines.push('| store | run | per s | × ceiling | server CPU ms each | effect lag p50 ms | p99 ms | waiting 5 s after |');
    lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const report of reports) {
      for (const run of report.eventRuns) {
        const cpu = run.serverCpuMs === undefined ? '—' : run.serverCpuMs.toFixed(2);
        lines.push(
          `| ${report.store} | ${run.route} | ${run.perSecond.toFixed(0)} | ${(run.ratioToCeiling * 100).toFixed(0)}% | ${cpu} | ${run.lag.p50Ms} | ${run.lag.p99Ms} | ${run.lag.waiting} |`,
        );
      }
      if (report.scim) {
        const scim = report.scim;
        const stopped = scim.stopped ? ', stopped at the time budget' : '';
        lines.push(
          `| ${report.store} | POST /scim/v2/Users (${scim.users} of ${scim.target} new users in ${scim.seconds.toFixed(1)} s${stopped}, p99 ${scim.p99Ms} ms, ${scim.non2xx} non-2xx) | ` +
            `${scim.perSecond.toFixed(scim.perSecond < 10 ? 1 : 0)} | — | ${scim.serverCpuMs.toFixed(2)} | — | — | — |`,
        );
      }
    }
  }

  if (reports.some((report) => report.writeSeenElsewhere)) {
    lines.push('');
    lines.push(
      'A directory write through one instance seen by the other (a SCIM group created through one, then `GET /departments/{id}` on the other until it answers; deleted through the other, then read on the first until 404; from the answer to the write to the answer of that read):',
    );
    lines.push('');
    lines.push('| store | writes | p50 ms | p99 ms | max ms | not seen within |');
    lines.push('|---|---:|---:|---:|---:|---:|');
    for (const report of reports) {
      const seen = report.writeSeenElsewhere;
      if (seen) lines.push(`| ${report.store} | ${seen.writes} | ${seen.p50Ms} | ${seen.p99Ms} | ${seen.maxMs} | ${seen.notSeen} in ${seen.patienceMs / 1000} s |`);
    }
  }

  lines.push('');
  lines.push('| store | snapshot import | again, unchanged | start-up to ready | directory load (banner) | resident memory after the run | peak | effect lag of events |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const report of reports) {
    const seconds = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '—' : `${value.toFixed(1)} s`);
    const mb = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(0)} MB`);
    const ready = seconds(report.startup && report.startup.readyMs / 1000);
    const load = seconds(report.startup?.directoryLoadMs === undefined ? undefined : report.startup.directoryLoadMs / 1000);
    lines.push(
      `| ${report.store} | ${seconds(report.importSeconds)} | ${seconds(report.reimportSeconds)} | ${ready} | ${load} | ${mb(report.residentMemoryMb)} | ${mb(report.peakMemoryMb)} | ${report.effectLag} |`,
    );
  }

  const problems = reports.flatMap((report) => report.problems.map((problem) => `- ${report.store}: ${problem}`));
  if (problems.length > 0) {
    lines.push('');
    lines.push('Problems (steps that failed, did not end within their bound, or were skipped; their rows are missing above):');
    lines.push('');
    lines.push(...problems);
  }
  return lines.join('\n');
}

/** `12 (503: 12)`: the count and which statuses. */
function non2xx(figures: RouteFigures): string {
  const statuses = Object.entries(figures.non2xxByStatus ?? {});
  return statuses.length === 0 ? `${figures.non2xx}` : `${figures.non2xx} (${statuses.map(([status, count]) => `${status}: ${count}`).join(', ')})`;
}

function row(store: string, result: RouteResult): string {
  const cpu = result.serverCpuMsPerRequest === undefined ? '—' : result.serverCpuMsPerRequest.toFixed(2);
  return `| ${store} | ${result.route} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms} | ${result.p99Ms} | ${(result.ratioToCeiling * 100).toFixed(0)}% | ${cpu} | ${result.non2xx} | ${result.errors} |`;
}
