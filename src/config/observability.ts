import { parseSecret, type EnvGetter } from './values.js';

export interface ObservabilityConfig {
  /** Bearer token of GET /metrics (METRICS_TOKEN, at least 16 characters); undefined = open. */
  readonly metricsToken: string | undefined;
}

export function observabilityConfig(get: EnvGetter): ObservabilityConfig {
  return Object.freeze({ metricsToken: parseSecret('METRICS_TOKEN', get('METRICS_TOKEN')) });
}
