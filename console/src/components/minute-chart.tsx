/** Events per minute over the last hour, as SVG bars (no chart library: Preact renders the SVG). */
export function MinuteChart({ times, now, minutes = 60 }: { times: readonly string[]; now: number; minutes?: number }) {
  const buckets = new Array<number>(minutes).fill(0);
  const start = now - minutes * 60_000;
  for (const time of times) {
    const at = Date.parse(time);
    if (at < start || at > now) continue;
    const index = Math.min(minutes - 1, Math.floor((at - start) / 60_000));
    buckets[index] = (buckets[index] ?? 0) + 1;
  }
  const max = Math.max(1, ...buckets);
  const width = 600;
  const height = 120;
  const bar = width / minutes;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-label={`events per minute, last ${minutes} minutes, at most ${max}`}>
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        {buckets.map((count, index) => {
          const h = (count / max) * (height - 10);
          return (
            <rect key={index} x={index * bar + 1} y={height - h} width={bar - 2} height={h} class="bar">
              <title>{`${minutes - index} min ago: ${count}`}</title>
            </rect>
          );
        })}
        <text x="0" y={height + 15} class="tick">
          −{minutes} min
        </text>
        <text x={width / 2} y={height + 15} class="tick" text-anchor="middle">
          −{minutes / 2} min
        </text>
        <text x={width} y={height + 15} class="tick" text-anchor="end">
          now
        </text>
        <text x="4" y="12" class="tick">
          max {max}/min
        </text>
      </svg>
    </figure>
  );
}
