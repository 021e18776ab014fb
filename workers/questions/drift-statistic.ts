/**
 * Jensen–Shannon distance (base 2, in [0, 1]) between two count vectors over the same bins: the square root of
 * the Jensen–Shannon divergence of their shares. Symmetric, bounded, and defined with empty bins (no smoothing
 * constant), which a ten-bin histogram of a confident model always has. Null when either side has no counts.
 */
export function jensenShannonDistance(a: readonly number[], b: readonly number[]): number | null {
  const n = Math.max(a.length, b.length);
  const sa = a.reduce((s, x) => s + x, 0);
  const sb = b.reduce((s, x) => s + x, 0);
  if (!(sa > 0 && sb > 0)) return null;
  let divergence = 0;
  for (let i = 0; i < n; i++) {
    const p = (a[i] ?? 0) / sa;
    const q = (b[i] ?? 0) / sb;
    const m = (p + q) / 2;
    if (p > 0) divergence += 0.5 * p * Math.log2(p / m);
    if (q > 0) divergence += 0.5 * q * Math.log2(q / m);
  }
  return Math.sqrt(Math.min(1, Math.max(0, divergence)));
}

/** Element-wise sum of count vectors (of any lengths). */
export function addCounts(into: number[], more: readonly number[]): number[] {
  for (let i = 0; i < more.length; i++) into[i] = (into[i] ?? 0) + (more[i] ?? 0);
  return into;
}
