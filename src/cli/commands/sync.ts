import { loadConfig } from '../../config.js';
import { composeDirectoryChanges } from '../../directory-writes.js';
import { openDatabase } from '../../store/database.js';
import type { DirectoryChange, DirectoryDiff, DirectorySection } from '../../snapshot/directory-changes.js';
import { runLdapSync } from '../../sync/ldap/ldap-sync.js';
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
    const report = await runLdapSync(ldapSyncDeps(config, store, composeDirectoryChanges(config, store))!, { mode: values.incremental ? 'scheduled' : 'full', dryRun });
    const out: string[] = [];
    const mode = `${report.detail ?? ''}${dryRun ? ', dry run' : ''}`;
    if (report.status === 'failed') {
      process.stderr.write(`LDAP sync of team ${config.sync.ldap.teamId} failed (run ${report.runId}):\n${report.errors.map((error) => `  ${error}`).join('\n')}\n`);
      return EXIT.failure;
    }
    if (!report.diff) {
      out.push(`LDAP sync of team ${config.sync.ldap.teamId}: nothing read (${mode})`);
    } else {
      out.push(`LDAP sync of team ${config.sync.ldap.teamId} (${mode}): ${summary(report.diff)}`);
      out.push(...changeLines(report.diff, report.change));
      if (dryRun) out.push('nothing written (--dry-run)');
    }
    for (const warning of report.warnings) out.push(`warning: ${warning}`);
    process.stdout.write(`${out.join('\n')}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

function summary(diff: DirectoryDiff): string {
  const count = (lists: Record<DirectorySection, string[]>) => SECTIONS.reduce((sum, section) => sum + lists[section].length, 0);
  return `${count(diff.created)} created, ${count(diff.updated)} updated, ${count(diff.removed)} removed, ${diff.deactivatedUsers.length} deactivated, ${diff.reactivatedUsers.length} reactivated`;
}

/** One line per section and kind of change, each record as `id (name)` where the change names it. */
function changeLines(diff: DirectoryDiff, change: DirectoryChange | undefined): string[] {
  const names = new Map<string, string>();
  for (const section of SECTIONS) {
    for (const record of (change?.upsert?.[section] ?? []) as Array<{ id: string; name: string }>) names.set(`${section}:${record.id}`, record.name);
  }
  const label = (section: string, id: string) => {
    const name = names.get(`${section}:${id}`);
    return name === undefined || name === id ? id : `${id} (${name})`;
  };
  const lines: string[] = [];
  for (const section of SECTIONS) {
    for (const [kind, ids] of [['created', diff.created[section]], ['updated', diff.updated[section]], ['removed', diff.removed[section]]] as const) {
      if (ids.length > 0) lines.push(`  ${section} ${kind}: ${ids.map((id) => label(section, id)).join(', ')}`);
    }
  }
  if (diff.deactivatedUsers.length > 0) lines.push(`  users deactivated: ${diff.deactivatedUsers.join(', ')}`);
  if (diff.reactivatedUsers.length > 0) lines.push(`  users reactivated: ${diff.reactivatedUsers.join(', ')}`);
  return lines;
}
