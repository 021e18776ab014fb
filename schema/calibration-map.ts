/**
 * An account's calibration map (issue 44): applied to the version's unrounded distribution of one question,
 * z_i = log(p_i) / temperature + bias_i, then softmax. A check's distribution is [yes, no] and its bias is on
 * yes only, which is a temperature and a bias on the logit of P(yes): the order of P(yes) is kept.
 */
export interface CalibrationMap {
  temperature: number;
  /** One per option or level (pick, rate), or [yes, 0] (check); all 0 for a temperature alone. */
  bias: number[];
}

/** The map that changes nothing (the version's own answers). */
export const identityMap = (k: number): CalibrationMap => ({ temperature: 1, bias: new Array(k).fill(0) });

/**
 * Log-probabilities below this are read as this: a label the version gave (almost) nothing keeps a finite
 * score, the same in the fit and in a decide.
 */
export const LOG_FLOOR = Math.log(1e-15);

/** log p_i, floored. */
export function logProbabilities(p: readonly number[]): number[] {
  return p.map((v) => (v > 0 ? Math.max(LOG_FLOOR, Math.log(v)) : LOG_FLOOR));
}

/** Softmax of z, stable; the same operations in the same order every time (replays are byte-identical). */
export function softmax(z: readonly number[]): number[] {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of z) if (v > max) max = v;
  const e = z.map((v) => Math.exp(v - max));
  let sum = 0;
  for (const v of e) sum += v;
  return e.map((v) => v / sum);
}

/** The calibrated distribution of one question: `map` applied to the version's unrounded `p`. */
export function applyMap(map: CalibrationMap, p: readonly number[]): number[] {
  const s = 1 / map.temperature;
  const logs = logProbabilities(p);
  return softmax(logs.map((l, i) => s * l + (map.bias[i] ?? 0)));
}
