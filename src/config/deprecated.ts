/**
 * Variables that no longer do anything. Set, each is one warning line of the start-up banner, never a
 * refused start: an operator's old environment keeps working.
 */
const DEPRECATED: ReadonlyArray<readonly [name: string, why: string]> = [
  ['SEARCH_WORKERS', 'searches are answered from the read model in memory, on the main thread (docs/scaling.md)'],
];

/** One warning line per deprecated variable that is set. */
export function deprecationWarnings(get: (name: string) => string | undefined): string[] {
  return DEPRECATED.filter(([name]) => get(name) !== undefined).map(([name, why]) => `warning: ${name} is deprecated and ignored: ${why}`);
}
