import { ConfigError } from './config-error.js';

/** Default of EVENT_MAX_FANOUT: users one event may notify (mentions) or remind (date reminders). */
export const DEFAULT_MAX_FANOUT = 100;

/** The event pipeline's settings (docs/events.md, "Configuration"). */
export interface EventsConfig {
  /**
   * EVENTS_PROCESSOR (default true): this instance derives effects from the log. With false it only
   * acknowledges and logs events; another instance (PostgreSQL) or a later start derives their effects.
   */
  readonly processor: boolean;
  /** EVENT_MAX_FANOUT (default 100, 1 to 10000): users one event may notify or remind at most. */
  readonly maxFanout: number;
}

export function loadEventsConfig(get: (name: string) => string | undefined): EventsConfig {
  const processorText = get('EVENTS_PROCESSOR');
  let processor = true;
  if (processorText !== undefined) {
    if (/^(true|1|yes|on)$/i.test(processorText)) processor = true;
    else if (/^(false|0|no|off)$/i.test(processorText)) processor = false;
    else throw new ConfigError('EVENTS_PROCESSOR must be true or false');
  }
  const fanoutText = get('EVENT_MAX_FANOUT');
  const maxFanout = fanoutText === undefined ? DEFAULT_MAX_FANOUT : Number(fanoutText);
  if (!/^\d+$/.test(fanoutText ?? '1') || maxFanout < 1 || maxFanout > 10_000) throw new ConfigError('EVENT_MAX_FANOUT must be a whole number from 1 to 10000');
  return Object.freeze({ processor, maxFanout });
}
