/** One grant as the read model holds it: the principal as `kind:id` and the role's rank. */
export interface HeldGrant {
  principal: string;
  rank: number;
}

/** Past this many grants on one file, a lookup goes through a map rather than along the list. */
const LIST_LIMIT = 32;

/**
 * The grants of one file, compact for the common few: a list of interned principal keys and their ranks,
 * with a map built on first use when the file has many.
 */
export class FileGrants {
  private byPrincipal: Map<string, number> | undefined;

  constructor(
    readonly principals: readonly string[],
    /** Small integers: a plain array costs less than a typed array for the few grants of most files. */
    readonly ranks: readonly number[],
  ) {}

  static of(grants: readonly HeldGrant[]): FileGrants {
    return new FileGrants(
      grants.map((grant) => grant.principal),
      grants.map((grant) => grant.rank),
    );
  }

  /** The strongest rank among the grants to any of `principals` (0: none). */
  strongestFor(principals: readonly string[]): number {
    let best = 0;
    if (this.principals.length <= LIST_LIMIT) {
      for (let index = 0; index < this.principals.length; index += 1) {
        const rank = this.ranks[index]!;
        if (rank > best && principals.includes(this.principals[index]!)) best = rank;
      }
      return best;
    }
    this.byPrincipal ??= new Map(this.principals.map((principal, index) => [principal, this.ranks[index]!]));
    for (const principal of principals) {
      const rank = this.byPrincipal.get(principal) ?? 0;
      if (rank > best) best = rank;
    }
    return best;
  }
}
