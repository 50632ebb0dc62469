import type { LdapConfig } from '../../config/sync.js';
import type { TeamState } from '../../store/directory-writes/directory-state.js';
import type { SyncRunStore } from '../../store/sync/sync-runs.js';
import type { DirectoryChange, DirectoryChanges } from '../../directory-changes/directory-changes.js';
import { recordedRun, type RunReport } from '../sync-run.js';
import { applyLdapView } from './ldap-apply.js';
import { withLdapConnection, type LdapSearcher } from './ldap-connection.js';
import { readLdapView } from './ldap-view.js';

export interface LdapSyncDeps {
  config: LdapConfig;
  changes: DirectoryChanges;
  runs: SyncRunStore;
  /** The configured team as stored now. */
  readTeam(teamId: string): Promise<TeamState>;
  now?: () => number;
  /** How to reach the server; default: a real connection with the configured address and credentials. */
  connect?: <T>(config: LdapConfig, work: (searcher: LdapSearcher) => Promise<T>) => Promise<T>;
}

export interface LdapSyncOptions {
  dryRun?: boolean;
  /**
   * `full` reads everything (deletions included); `scheduled` first asks the server whether any entry
   * changed since the last run (LDAP_CHANGE_ATTRIBUTE above the stored mark) and reads in full only
   * then, or when the last full read is older than LDAP_FULL_SYNC_INTERVAL.
   */
  mode: 'full' | 'scheduled';
}

export interface LdapSyncReport extends RunReport {
  /** The records LDAP has (their names for what --dry-run prints), when the run read the directory. */
  desired: DirectoryChange['upsert'] | undefined;
  /** What was taken differently from what the directory says, nothing left out (a nesting loop cut). */
  notes: string[];
}

const STATE = { mark: 'highWaterMark', lastFull: 'lastFullReadMs' } as const;

/** An entry changed after the mark: the attribute at or above it, and not equal to it. */
function changedSince(config: LdapConfig, filter: string, mark: string): string {
  const attribute = config.changeAttribute;
  return `(&${filter}(${attribute}>=${mark})(!(${attribute}=${mark})))`;
}

/**
 * One LDAP sync run, recorded: reads the team from LDAP, computes the change against the store, and
 * applies it through the change path in one transaction (source `ldap`). A dry run computes and
 * records the change and writes nothing.
 */
export async function runLdapSync(deps: LdapSyncDeps, options: LdapSyncOptions): Promise<LdapSyncReport> {
  const { config, runs } = deps;
  const now = deps.now ?? Date.now;
  const connect = deps.connect ?? withLdapConnection;
  const dryRun = options.dryRun ?? false;
  const mark = await runs.getState('ldap', `${STATE.mark}:${config.changeAttribute}`);
  const lastFull = Number((await runs.getState('ldap', STATE.lastFull)) ?? 0);
  const probe = options.mode === 'scheduled' && config.incremental && mark !== undefined && now() - lastFull < config.fullIntervalSeconds * 1000;

  let desired: DirectoryChange['upsert'] | undefined;
  let notes: string[] = [];
  let highWaterMark: string | undefined;
  const report = await recordedRun(runs, { source: 'ldap', mode: probe ? 'incremental' : 'full', dryRun, detail: null }, () =>
    connect(config, async (ldap) => {
      let detail = 'read in full';
      if (probe) {
        const bases: Array<[string, string]> = [[config.userBaseDn, config.userFilter]];
        if (config.departments.includes('ou')) bases.push([config.departmentBaseDn, config.ouFilter]);
        if (config.departments.includes('groups')) bases.push([config.groupBaseDn, config.groupFilter]);
        let changed = 0;
        for (const [base, filter] of bases) changed += (await ldap.search(base, changedSince(config, filter, mark!), ['1.1'])).length;
        if (changed === 0) return { unchangedAtSource: `no entry changed since ${config.changeAttribute} ${mark}` };
        detail = `${changed} ${changed === 1 ? 'entry' : 'entries'} changed since ${config.changeAttribute} ${mark}; read in full`;
      }
      const view = await readLdapView(config, ldap);
      notes = view.notes;
      highWaterMark = view.highWaterMark;
      desired = { teams: [view.desired.team], departments: view.desired.departments, users: view.desired.users };
      const team = () => deps.readTeam(config.teamId);
      if (view.userEntries === 0) {
        const active = (await team()).users.filter((user) => user.active).length;
        // An empty answer is a wrong base DN or filter far more often than a company without people.
        if (active > 0)
          throw new Error(
            `LDAP answered no user entries below ${config.userBaseDn} matching ${config.userFilter}, while team ${config.teamId} has ${active} active users: nothing was changed (check LDAP_USER_BASE_DN and LDAP_USER_FILTER)`,
          );
      }
      const applied = await applyLdapView({ changes: deps.changes, readTeam: team }, view, { dryRun });
      const said = [
        detail,
        ...(applied.skipped.length > 0 ? [`${applied.skipped.length} ${applied.skipped.length === 1 ? 'entry' : 'entries'} skipped`] : []),
        ...(notes.length > 0 ? [notes.join('; ')] : []),
      ];
      return { ...applied, detail: said.join('; ') };
    }),
  );
  if (!dryRun && report.status !== 'failed' && desired !== undefined) {
    await runs.setState('ldap', STATE.lastFull, String(now()));
    if (highWaterMark !== undefined) await runs.setState('ldap', `${STATE.mark}:${config.changeAttribute}`, highWaterMark);
  }
  return { ...report, desired, notes };
}
