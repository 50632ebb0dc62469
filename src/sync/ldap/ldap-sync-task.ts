import type { Config } from '../../config/config.js';
import { PollingTask, type TaskLog } from '../../events/polling-task.js';
import { runLdapSync, type LdapSyncDeps } from './ldap-sync.js';

/**
 * The scheduled LDAP sync of `serve`: on when LDAP_URL and LDAP_SYNC_INTERVAL are set. The first run
 * starts with the server, the next ones every interval (scheduled mode: skipped when nothing changed,
 * in full every LDAP_FULL_SYNC_INTERVAL). Every run is recorded; failures are logged and retried at
 * the next interval. The server stops the task on close, after the run in progress.
 */
export function startSyncTasks(config: Config, deps: LdapSyncDeps | undefined, log: TaskLog): PollingTask[] {
  const interval = config.sync.ldap?.intervalSeconds;
  if (!deps || interval === undefined) return [];
  const task = new PollingTask(
    'ldap-sync',
    async () => {
      const report = await runLdapSync(deps, { mode: 'scheduled' });
      const fields = { runId: report.runId, status: report.status, detail: report.detail, skipped: report.skipped.length };
      if (report.status === 'failed') log.error({ ...fields, errors: report.errors }, 'LDAP sync failed');
      else if (report.skipped.length > 0) log.warn({ ...fields, entries: report.skipped.slice(0, 20) }, 'LDAP sync run skipped entries');
      else log.info(fields, 'LDAP sync run');
      return false;
    },
    interval * 1000,
    log,
  );
  return [task.start()];
}
