import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PreparedReads } from '../statements/prepared-reads.js';
import type { FixedStatement } from '../statements/fixed-statement.js';

/**
 * Fixed statements as named (prepared) statements on the pool: PostgreSQL plans each once per connection
 * instead of on every call; planning the grant join took longer (milliseconds) than running it. A
 * statement's name is a hash of its text, so two readers over one pool can never give one name two texts.
 */
export class PostgresPreparedReads implements PreparedReads {
  private readonly names = new Map<FixedStatement, string>();

  constructor(private readonly pool: pg.Pool) {}

  async rows<R>(statement: FixedStatement, parameters: readonly unknown[]): Promise<R[]> {
    let name = this.names.get(statement);
    if (!name) {
      name = `ch_${createHash('sha256').update(statement.postgresText).digest('hex').slice(0, 24)}`;
      this.names.set(statement, name);
    }
    const result = await this.pool.query({ name, text: statement.postgresText, values: [...parameters] });
    return result.rows as R[];
  }
}
