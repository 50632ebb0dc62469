import { spawnSync } from 'node:child_process';

/**
 * Prometheus's own parser: `promtool check metrics` (Debian's `prometheus` package, which .ci/run
 * installs) reads an exposition the way a Prometheus server scrapes it, and lints it.
 */
export const promtool: string | undefined = ['promtool', '/usr/bin/promtool'].find((path) => spawnSync(path, ['--version']).status === 0);

if (!promtool) process.stderr.write('\n*** promtool not found (apt-get install prometheus): the Prometheus parser check of /metrics is SKIPPED ***\n\n');

/** Parses and lints `text` with promtool; `ok` false with promtool's words when it refuses anything. */
export function promtoolCheck(text: string): { ok: boolean; output: string } {
  const run = spawnSync(promtool as string, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim() };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an exposition, for looking values up (promtool checks the format itself). */
export function samples(text: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    const text = match[3]!;
    found.push({ name: match[1]!, labels, value: text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text) });
  }
  return found;
}

/** The one sample with this name and (at least) these labels; throws when there is none. */
export function sample(all: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hit = all.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (!hit) throw new Error(`no sample ${name}${JSON.stringify(labels)}`);
  return hit.value;
}
