/**
 * The Node options `collab-host serve` is meant to run with; `npm start`, examples/deploy's Dockerfile and
 * systemd unit, and the bench pass them. V8 reads them when the process starts, so the service cannot set
 * them itself: a start without one is told in the banner.
 *
 * `--no-memory-reducer`: when the rate of requests drops, V8's memory reducer starts a full collection
 * to give memory back, marking on the main thread in steps of up to ~80 ms on the bench company's heap
 * (~400 MB of directory in memory). Those steps were the open loop's p99 of 200-430 ms at 300 searches/s
 * (3-6 ms without it); what it costs is that the heap no longer shrinks while idle (docs/scaling.md).
 */
export const SERVING_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];

/** The serving flags that `execArgv` (a process's Node options) lacks. */
export function missingServingFlags(execArgv: readonly string[]): string[] {
  return SERVING_NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}
