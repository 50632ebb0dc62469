import { parseBoolean, parseInteger, type EnvGetter } from './values.js';

/** How the service uses its database (DATABASE_URL itself stays `Config.databaseUrl`). */
export interface DatabaseConfig {
  /** PostgreSQL connections in the pool (DATABASE_POOL_SIZE, default 10). */
  readonly poolSize: number;
  /** `collab-host serve` applies pending migrations before it listens (MIGRATE_ON_START, default true). */
  readonly migrateOnStart: boolean;
}

export function databaseConfig(get: EnvGetter): DatabaseConfig {
  return Object.freeze({
    poolSize: parseInteger('DATABASE_POOL_SIZE', get('DATABASE_POOL_SIZE'), 10, 1, 1000),
    migrateOnStart: parseBoolean('MIGRATE_ON_START', get('MIGRATE_ON_START'), true),
  });
}
