import type { SyncConfig } from '../config/sync.js';

/** The sources that write the directory from outside: the SCIM service provider and the LDAP sync. */
export type SyncSource = 'scim' | 'ldap';

/**
 * Which source keeps which team, from configuration: the change path's `owners` option. A write from
 * any other source to an owned team is refused (409 `team_owned_by_source`); the configuration already
 * refuses one team for two sources.
 */
export function syncOwners(config: { readonly sync: SyncConfig }): Map<string, SyncSource> {
  const owners = new Map<string, SyncSource>();
  if (config.sync.scim) owners.set(config.sync.scim.teamId, 'scim');
  if (config.sync.ldap) owners.set(config.sync.ldap.teamId, 'ldap');
  return owners;
}
