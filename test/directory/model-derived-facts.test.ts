import { describe, expect, it } from 'vitest';
import { DirectoryModel } from '../../src/directory/read-model/directory-model.js';
import type { Department, User } from '../../src/directory/types.js';
import { byNameThenId } from '../../src/directory/read-model/text-order.js';
import { DEPARTMENTS, random, TEAMS, USERS } from './read-model-checks.js';

/**
 * What a department's `allMemberCount` must be, from the rows as the test set them: the distinct active
 * users with a membership in a known department whose chain of parents (stopping at a repeat or at an
 * unknown parent) passes through it.
 */
function expectedCount(departments: Map<string, Department>, users: Map<string, User>, memberships: Map<string, string[]>, departmentId: string): number {
  if (!departments.has(departmentId)) return 0;
  const reaches = (id: string) => {
    const seen = new Set<string>();
    for (let current: string | null | undefined = id; current != null && departments.has(current) && !seen.has(current); current = departments.get(current)?.parentId) {
      if (current === departmentId) return true;
      seen.add(current);
    }
    return false;
  };
  let count = 0;
  for (const [userId, ids] of memberships) if (users.has(userId) && users.get(userId)!.active !== false && ids.some(reaches)) count += 1;
  return count;
}

/** The active people, by name then id, of those `belongs` says. */
function inOrder(users: Map<string, User>, belongs: (user: User) => boolean): string[] {
  return [...users.values()]
    .filter((user) => user.active !== false && belongs(user))
    .sort(byNameThenId)
    .map((user) => user.id);
}

describe('what the read model derives from people, memberships and the tree', () => {
  it('member counts, and member and team lists in order, follow every change as computing them afresh finds them', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rng = random(seed);
      const model = new DirectoryModel();
      const departments = new Map<string, Department>();
      const users = new Map<string, User>();
      const memberships = new Map<string, string[]>();
      for (let step = 0; step < 400; step += 1) {
        const what = rng.next();
        let change: string;
        if (what < 0.15) {
          // Parents may be unknown ('gone') or make a cycle: the counts follow the chains as the tree has them.
          const id = rng.pick(DEPARTMENTS);
          const department = rng.next() < 0.1 ? undefined : { id, name: id, teamId: 't', parentId: rng.next() < 0.3 ? null : rng.pick([...DEPARTMENTS, 'gone']) };
          if (department) departments.set(id, department);
          else departments.delete(id);
          model.setDepartment(id, department);
          change = `department ${id} ${department ? `under ${department.parentId}` : 'removed'}`;
        } else if (what < 0.5) {
          const id = rng.pick(USERS);
          // Renamed (the lists' order changes), moved between teams, deactivated, removed.
          const user =
            rng.next() < 0.1
              ? undefined
              : { id, name: rng.pick(['Ann', 'bob', '张三', 'Zed']), email: null, avatar: null, teamId: rng.pick(TEAMS), watermark: null, active: rng.next() < 0.7 };
          if (user) users.set(id, user);
          else users.delete(id);
          model.setUser(id, user);
          change = `user ${id} ${user ? (user.active ? 'active' : 'inactive') : 'removed'}`;
        } else {
          const id = rng.pick(USERS);
          const ids = rng.some([...DEPARTMENTS, 'gone'], 3);
          if (ids.length > 0) memberships.set(id, ids);
          else memberships.delete(id);
          model.setMemberships(id, ids);
          change = `memberships of ${id}: ${ids.join(' ') || 'none'}`;
        }
        // Asked every few steps, so that some changes meet counts already kept and some meet none.
        if (step % 3 !== 0) continue;
        for (const id of [...DEPARTMENTS, 'gone']) {
          expect(model.subtreeMemberCount(id), `seed ${seed} step ${step} (${change}): count of ${id}`).toBe(expectedCount(departments, users, memberships, id));
          expect(model.activeMembers(id), `seed ${seed} step ${step} (${change}): members of ${id}`).toEqual(
            inOrder(users, (user) => memberships.get(user.id)?.includes(id) ?? false),
          );
        }
        for (const teamId of TEAMS) {
          const expected = inOrder(users, (user) => user.teamId === teamId);
          expect(model.activeTeamUsers(teamId), `seed ${seed} step ${step} (${change}): team ${teamId}`).toEqual(expected);
          expect(model.activeTeamUserRecords(teamId).map((user) => user.id)).toEqual(expected);
        }
      }
    }
  });

  it('a large team keeps its order through few and through many changes between two uses', () => {
    const rng = random(7);
    const model = new DirectoryModel();
    const users = new Map<string, User>();
    const write = (id: string) => {
      const user = {
        id,
        name: `${rng.pick(['Ann', 'bob', '张三', 'Zed'])} ${Math.floor(rng.next() * 50)}`,
        email: null,
        avatar: null,
        teamId: 't',
        watermark: null,
        active: rng.next() < 0.9,
      };
      users.set(id, user);
      model.setUser(id, user);
    };
    const ids = Array.from({ length: 400 }, (_, index) => `p${index}`);
    ids.forEach(write);
    // Put back in place (30 changed) and sorted afresh (300 changed: past a quarter of the list).
    for (const [round, changes] of [0, 30, 300, 1, 64, 65].entries()) {
      for (const id of [...ids.slice(round * 50), ...ids].slice(0, changes)) write(id);
      expect(model.activeTeamUsers('t'), `after ${changes} changes`).toEqual(inOrder(users, () => true));
    }
  });

  it('a user in two departments of one subtree is one person there', () => {
    const model = new DirectoryModel();
    model.setDepartment('rd', { id: 'rd', name: 'rd', teamId: 't', parentId: null });
    model.setDepartment('fe', { id: 'fe', name: 'fe', teamId: 't', parentId: 'rd' });
    model.setDepartment('be', { id: 'be', name: 'be', teamId: 't', parentId: 'rd' });
    model.setUser('ann', { id: 'ann', name: 'Ann', email: null, avatar: null, teamId: 't', watermark: null });
    model.setMemberships('ann', ['fe']);
    expect([model.subtreeMemberCount('rd'), model.subtreeMemberCount('fe'), model.subtreeMemberCount('be')]).toEqual([1, 1, 0]);
    model.setMemberships('ann', ['fe', 'be']);
    expect([model.subtreeMemberCount('rd'), model.subtreeMemberCount('fe'), model.subtreeMemberCount('be')]).toEqual([1, 1, 1]);
    model.setUser('ann', { id: 'ann', name: 'Ann', email: null, avatar: null, teamId: 't', watermark: null, active: false });
    expect([model.subtreeMemberCount('rd'), model.subtreeMemberCount('fe'), model.subtreeMemberCount('be')]).toEqual([0, 0, 0]);
  });
});
