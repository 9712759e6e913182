/** The value below which a share `q` of `xs` falls (nearest rank), rounded; NaN when there are none. */
export function percentile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN);
}
