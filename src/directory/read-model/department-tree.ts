import type { Department, DepartmentPathNode } from '../types.js';
import { byNameThenId } from './text-order.js';

/**
 * The department tree's derived facts, computed on first use from the departments and kept until a
 * department changes: children in order, and each department's chain of ancestors as the store's
 * closure (department_ancestors, src/store/directory-writes/directory-writer.ts) has it, itself first, a parent that is
 * not a known department ending the chain, a cycle stopping it.
 */
export class DepartmentTree {
  private children: Map<string, Department[]> | undefined;
  private readonly chains = new Map<string, readonly string[]>();

  constructor(private readonly departments: ReadonlyMap<string, Department>) {}

  /** Forgets what was derived (call on every change of a department). */
  invalidate(): void {
    this.children = undefined;
    this.chains.clear();
  }

  /** The departments of the team under `parentId` (null: the first level), by name then id. */
  childrenOf(teamId: string, parentId: string | null): readonly Department[] {
    return this.childIndex().get(childKey(teamId, parentId)) ?? [];
  }

  /**
   * The department itself and its ancestors up to the first level (empty for an unknown department):
   * the departments whose grants reach a member of it.
   */
  chainOf(departmentId: string): readonly string[] {
    let chain = this.chains.get(departmentId);
    if (chain) return chain;
    const ids: string[] = [];
    if (this.departments.has(departmentId)) {
      const seen = new Set<string>();
      for (let current: string | null | undefined = departmentId; current != null && !seen.has(current); current = this.departments.get(current)?.parentId) {
        seen.add(current);
        ids.push(current);
      }
    }
    chain = ids;
    this.chains.set(departmentId, chain);
    return chain;
  }

  /** The known ancestors of the department from the first level down, itself left out. */
  ancestorsOf(departmentId: string): DepartmentPathNode[] {
    return this.pathTo(departmentId).slice(0, -1);
  }

  /** The known departments from the first level down to the department itself (empty when unknown). */
  pathTo(departmentId: string): DepartmentPathNode[] {
    const path: DepartmentPathNode[] = [];
    for (const id of this.chainOf(departmentId)) {
      const department = this.departments.get(id);
      if (department) path.push({ id: department.id, name: department.name });
    }
    return path.reverse();
  }

  private childIndex(): Map<string, Department[]> {
    if (this.children) return this.children;
    const children = new Map<string, Department[]>();
    for (const department of this.departments.values()) {
      const key = childKey(department.teamId, department.parentId);
      const list = children.get(key);
      if (list) list.push(department);
      else children.set(key, [department]);
    }
    for (const list of children.values()) list.sort(byNameThenId);
    this.children = children;
    return children;
  }
}

function childKey(teamId: string, parentId: string | null): string {
  return `${teamId}\u0000${parentId ?? ''}`;
}
