import type { Department } from '../types.js';
import type { DepartmentTree } from './department-tree.js';

/**
 * Per known department, the distinct active users in it and every department under it, for one state of
 * the tree (a change of a department makes a new one). Filled in one pass over the memberships, then
 * kept by adding and taking away members: a user counts once in each department on the chains (the
 * department and its ancestors) of their departments, however many of their departments one subtree holds.
 */
export class SubtreeCounts {
  private readonly slots = new Map<string, number>();
  private readonly counts: Int32Array;
  /** Per department id (known or not): the slots of the known departments on its chain. */
  private readonly chains = new Map<string, Int32Array>();

  constructor(
    departments: ReadonlyMap<string, Department>,
    private readonly tree: DepartmentTree,
  ) {
    for (const id of departments.keys()) this.slots.set(id, this.slots.size);
    this.counts = new Int32Array(this.slots.size);
  }

  /** The count of a department; 0 for one the tree does not know. */
  of(departmentId: string): number {
    const slot = this.slots.get(departmentId);
    return slot === undefined ? 0 : this.counts[slot]!;
  }

  /** Adds (1) or takes away (-1) an active user who is a member of `departmentIds`. */
  add(departmentIds: readonly string[], delta: 1 | -1): void {
    if (departmentIds.length === 1) {
      const chain = this.chainOf(departmentIds[0]!);
      for (let index = 0; index < chain.length; index += 1) this.counts[chain[index]!]! += delta;
      return;
    }
    const reached = new Set<number>();
    for (const id of departmentIds) for (const slot of this.chainOf(id)) reached.add(slot);
    for (const slot of reached) this.counts[slot]! += delta;
  }

  private chainOf(departmentId: string): Int32Array {
    let chain = this.chains.get(departmentId);
    if (chain === undefined) {
      // A chain may end with a parent id the tree does not know: it has no count.
      const slots = this.tree.chainOf(departmentId).flatMap((id) => this.slots.get(id) ?? []);
      chain = Int32Array.from(slots);
      this.chains.set(departmentId, chain);
    }
    return chain;
  }
}
