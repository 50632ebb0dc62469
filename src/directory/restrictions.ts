import { FINE_PERMISSION_KEYS, type FinePermissionKey, type Restrictions } from './types.js';

/** The kit's keys a file's restrictions switch off, in the order of FINE_PERMISSION_KEYS. */
export function switchedOffKeys(restrictions: Partial<Record<FinePermissionKey, boolean>> | undefined): FinePermissionKey[] {
  if (!restrictions) return [];
  return FINE_PERMISSION_KEYS.filter((key) => restrictions[key] === false);
}

/** The switched-off keys as restriction members (`{ key: false }` each; `{}` when none). */
export function switchedOff(keys: readonly FinePermissionKey[]): Partial<Record<FinePermissionKey, false>> {
  const off: Partial<Record<FinePermissionKey, false>> = {};
  for (const key of keys) off[key] = false;
  return off;
}

/** A file's restrictions from what a record says: `copy` and `export` default to true; only false keys kept. */
export function restrictionsOf(given: ({ copy?: boolean; export?: boolean } & Partial<Record<FinePermissionKey, boolean>>) | undefined): Restrictions {
  return { copy: given?.copy ?? true, export: given?.export ?? true, ...switchedOff(switchedOffKeys(given)) };
}
