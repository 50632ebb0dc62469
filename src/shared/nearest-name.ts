/**
 * The one candidate `word` most likely mistypes: the same but for underscores, or within a small edit
 * distance (one edit for short names, two from eight letters); undefined when none, or two are as near.
 */
export function nearestName(word: string, candidates: Iterable<string>): string | undefined {
  const bare = (text: string) => text.replaceAll('_', '').replaceAll('-', '').toLowerCase();
  const allowed = word.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const candidate of candidates) {
    const distance = bare(candidate) === bare(word) ? 0 : editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance > allowed) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
