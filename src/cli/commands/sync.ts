import { loadConfig } from '../../config/config.js';
import { composeDirectoryChanges, printThreadFailure } from '../../composition/directory-writes.js';
import { openDatabase } from '../../store/connection/database.js';
import type { DirectoryDiff, DirectorySection } from '../../directory-changes/directory-changes.js';
import { runLdapSync, type LdapSyncReport } from '../../sync/ldap/ldap-sync.js';
import { changedIds, runCounts } from '../../sync/sync-run.js';
import { ldapSyncDeps } from '../../sync/sync-deps.js';
import { CliError } from '../cli-error.js';
import { EXIT, parseCommandArgs, usageError } from '../command-args.js';

const USAGE = `usage: collab-host sync ldap [--dry-run] [--incremental]

Runs one LDAP / Active Directory sync of LDAP_TEAM_ID from LDAP_URL into DATABASE_URL: one
transaction of the computed change, recorded in the sync runs (GET /api/sync/runs). docs/sync.md
lists every LDAP_* variable.
  --dry-run      compute and print the change; write nothing
  --incremental  read in full only if an entry changed since the last run (what scheduled runs do)`;

const SECTIONS: DirectorySection[] = ['teams', 'departments', 'users'];

/** `collab-host sync ldap [--dry-run] [--incremental]`: exit 0 when the run wrote or had nothing to write, 1 when it failed. */
export async function syncCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    { usage: USAGE, options: { 'dry-run': { type: 'boolean', default: false }, incremental: { type: 'boolean', default: false } }, positionals: { min: 1, max: 1 } },
    args,
  );
  if (positionals[0] !== 'ldap') throw usageError(`unknown source "${positionals[0]}" (SCIM needs no command: the identity provider calls /scim/v2)`, USAGE);
  const config = loadConfig();
  if (!config.sync.ldap) throw new CliError('LDAP_URL is not set: see docs/sync.md for the LDAP_* variables');

  const store = await openDatabase(config.databaseUrl);
  try {
    const dryRun = values['dry-run'];
    const report = await runLdapSync(ldapSyncDeps(config, store, composeDirectoryChanges(config, store, [], { onThreadFailure: printThreadFailure(process.stderr) }))!, {
      mode: values.incremental ? 'scheduled' : 'full',
      dryRun,
    });
    const out: string[] = [];
    const mode = `${report.detail ?? ''}${dryRun ? ', dry run' : ''}`;
    const team = config.sync.ldap.teamId;
    if (report.status === 'failed') {
      const written = report.diff ? [`written before the failure: ${summary(report.diff, 0)}`, ...changeLines(report.diff, report.desired)] : [];
      const lines = [...report.errors.map((error) => `  ${error}`), ...written.map((line) => `  ${line}`), ...skippedLines(report)];
      process.stderr.write(`LDAP sync of team ${team} failed (run ${report.runId}):\n${lines.join('\n')}\n`);
      return EXIT.failure;
    }
    if (!report.diff) {
      out.push(`LDAP sync of team ${team}: nothing read (${mode})`);
    } else {
      out.push(`LDAP sync of team ${team} (${mode}): ${summary(report.diff, report.skipped.length)}`);
      out.push(...changeLines(report.diff, report.desired));
      out.push(...skippedLines(report));
      if (dryRun) out.push('nothing written (--dry-run)');
    }
    for (const note of report.notes) out.push(`note: ${note}`);
    process.stdout.write(`${out.join('\n')}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

function summary(diff: DirectoryDiff, skipped: number): string {
  const counts = runCounts(diff, skipped);
  return `${counts.created} created, ${counts.updated} updated, ${counts.removed} removed, ${counts.deactivated} deactivated, ${counts.reactivated} reactivated, ${counts.skipped} skipped`;
}

/** One line per entry left out: its DN and why. */
function skippedLines(report: LdapSyncReport): string[] {
  return report.skipped.map((entry) => `  skipped ${entry.dn}: ${entry.reason}`);
}

/** One line per section and kind of change, each record as `id (name)` where LDAP names it. */
function changeLines(diff: DirectoryDiff, records: LdapSyncReport['desired']): string[] {
  const names = new Map<string, string>();
  for (const section of SECTIONS) {
    for (const record of (records?.[section] ?? []) as Array<{ id: string; name: string }>) names.set(`${section}:${record.id}`, record.name);
  }
  const label = (section: string, id: string) => {
    const name = names.get(`${section}:${id}`);
    return name === undefined || name === id ? id : `${id} (${name})`;
  };
  return changedIds(diff)
    .filter(({ section }) => SECTIONS.includes(section))
    .map(({ section, kind, ids }) => `  ${section} ${kind}: ${ids.map((id) => label(section, id)).join(', ')}`);
}
