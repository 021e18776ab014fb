/** Where a descent stops: at most `iters` steps, or once the squared gradient or the step is this small. */
export interface DescentLimits {
  iters: number;
  minGrad2: number;
  minStep: number;
}

/**
 * Minimises `loss` from `start` by gradient descent with backtracking (a step is taken when it lowers the loss
 * by at least 1e-4 · step · |g|², then grows by 1.5; otherwise it halves). Deterministic.
 */
export function descend(
  start: number[],
  loss: (v: number[]) => number,
  grad: (v: number[]) => number[],
  limits: DescentLimits,
): number[] {
  let v = start;
  let cur = loss(v);
  let step = 0.05;
  for (let it = 0; it < limits.iters; it++) {
    const g = grad(v);
    const n2 = g.reduce((s, x) => s + x * x, 0);
    if (n2 < limits.minGrad2) break;
    let ok = false;
    while (step > limits.minStep) {
      const next = v.map((x, k) => x - step * (g[k] as number));
      const l = loss(next);
      if (l <= cur - 1e-4 * step * n2) {
        [v, cur, ok] = [next, l, true];
        step *= 1.5;
        break;
      }
      step /= 2;
    }
    if (!ok) break;
  }
  return v;
}
