import type { EngineAnswer, ScoreQuestion } from "./engine-protocol";

/** Probabilities are reported in units of 1e-4 (4 decimals). */
export const UNITS = 10_000;

/**
 * Rounds a distribution to integer units of 1e-4 that sum to exactly 10 000, by largest remainder:
 * floor every share, then hand the missing units to the largest remainders (ties → earlier index).
 * Working on integers keeps float drift out of the sum; each share ends within 1e-4 of its true value.
 */
export function roundUnits(p: number[]): number[] {
  const total = p.reduce((a, b) => a + b, 0);
  const exact = p.map((v) => (total > 0 ? (v / total) * UNITS : UNITS / p.length));
  const units = exact.map((v) => Math.floor(v));
  const missing = UNITS - units.reduce((a, b) => a + b, 0);
  const order = exact.map((v, i) => ({ i, r: v - Math.floor(v) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; k < Math.min(Math.max(missing, 0), order.length); k++)
    units[(order[k] as { i: number }).i]! += 1;
  return units;
}

const fromUnits = (u: number) => u / UNITS;
const round4 = (x: number) => Math.round(x * UNITS) / UNITS;

/** 1 − H(p)/ln K on the calibrated (unrounded) distribution, 4 decimals; 1 when K = 1. */
export function confidence(p: number[]): number {
  if (p.length <= 1) return 1;
  let h = 0;
  for (const v of p) if (v > 0) h -= v * Math.log(v);
  return Math.min(1, Math.max(0, round4(1 - h / Math.log(p.length))));
}

/** Index of the largest value; ties go to the earlier index. */
function argmax(xs: number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if ((xs[i] as number) > (xs[best] as number)) best = i;
  return best;
}

/**
 * Shapes the calibrated distribution of one question per the spec's Decision table. `choice` and `rating`
 * are computed from the ROUNDED probabilities, so a client can recompute them from what it receives
 * (rating = Σ i·p_i is then exact at 4 decimals); rounding by largest remainder never reverses the order.
 */
export function shapeAnswer(q: ScoreQuestion, p: number[]): EngineAnswer {
  const units = roundUnits(p);
  const conf = confidence(p);
  const abstained = q.min_confidence !== undefined && conf < q.min_confidence;
  if (q.type === "pick") {
    return {
      type: "pick",
      choice: q.options[argmax(units)]?.label ?? "",
      probabilities: q.options.map((o, i) => [o.label, fromUnits(units[i] as number)] as [string, number]),
      confidence: conf,
      abstained,
    };
  }
  if (q.type === "rate") {
    const weighted = units.reduce((s, u, i) => s + u * i, 0);
    return {
      type: "rate",
      rating: fromUnits(weighted),
      levels: q.levels,
      probabilities: units.map(fromUnits),
      confidence: conf,
      abstained,
    };
  }
  return { type: "check", probability: fromUnits(units[0] as number), confidence: conf, abstained };
}
