import { describe, expect, it } from 'vitest';
import { FINE_PERMISSION_SOURCES, guestPermissionsFor, LINK_ROLES, permissionsFor } from '../../src/directory/permissions.js';
import { FINE_PERMISSION_KEYS, ROLES, type CorePermissions } from '../../src/directory/types.js';
import { withKitKeys } from '../helpers/permissions.js';

const CORE_KEYS = ['readable', 'commentable', 'editable', 'copyable', 'exportable', 'manageable'] as const;

describe('permissions of a role on a file', () => {
  it('derive the kit keys from the six by FINE_PERMISSION_SOURCES, in the documented key order, for every role and restriction', () => {
    for (const role of [...ROLES, null]) {
      for (const copy of [true, false]) {
        for (const exportAllowed of [true, false]) {
          const permissions = permissionsFor(role, { copy, export: exportAllowed });
          const core = Object.fromEntries(CORE_KEYS.map((key) => [key, permissions[key]])) as unknown as CorePermissions;
          expect(permissions).toEqual(withKitKeys(core));
          for (const key of FINE_PERMISSION_KEYS) expect(permissions[key]).toBe(core[FINE_PERMISSION_SOURCES[key]] && (key !== 'cutable' || core.copyable));
          // The answer's JSON lists the six, then the kit's nine in their order.
          expect(Object.keys(permissions)).toEqual([...CORE_KEYS, ...FINE_PERMISSION_KEYS]);
        }
      }
    }
  });

  it('a switched-off kit key is false whatever the role, and each call answers an object of its own', () => {
    const manager = permissionsFor('manager', { copy: true, export: true, cutable: false, lockable: false });
    expect(manager).toMatchObject({ editable: true, copyable: true, cutable: false, lockable: false, unlockable: true });
    const one = permissionsFor('editor', { copy: true, export: true });
    one.readable = false;
    expect(permissionsFor('editor', { copy: true, export: true }).readable).toBe(true);
  });

  it("a guest's permissions never include managing the file", () => {
    for (const role of LINK_ROLES) {
      const permissions = guestPermissionsFor(role, { copy: true, export: true });
      expect(permissions.manageable).toBe(false);
      expect(permissions.lockable).toBe(false);
      expect(Object.keys(permissions)).toEqual([...CORE_KEYS, ...FINE_PERMISSION_KEYS]);
    }
  });
});
