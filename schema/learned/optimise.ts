/**
 * L-BFGS for the state-reading fit: at most `iterations` steps, a backtracking (Armijo) line search, every
 * vector operation in index order. Deterministic: the same objective and start give the same x bit for bit.
 */

/** An objective's value and gradient at x (the gradient written into `g`). */
export type Objective = (x: Float64Array, g: Float64Array) => number;

const MEMORY = 8;

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/** Minimises a smooth convex `objective` from `start` (not modified); returns the last accepted x. */
export function lbfgs(objective: Objective, start: Float64Array, iterations: number): Float64Array {
  const dim = start.length;
  let x = Float64Array.from(start);
  let g = new Float64Array(dim);
  let f = objective(x, g);
  const ss: Float64Array[] = [];
  const ys: Float64Array[] = [];
  const rhos: number[] = [];
  const alphas = new Array<number>(MEMORY).fill(0);
  const d = new Float64Array(dim);
  for (let it = 0; it < iterations; it++) {
    // Two-loop recursion: d = −H·g.
    for (let i = 0; i < dim; i++) d[i] = g[i] as number;
    for (let j = ss.length - 1; j >= 0; j--) {
      const a = (rhos[j] as number) * dot(ss[j] as Float64Array, d);
      alphas[j] = a;
      const y = ys[j] as Float64Array;
      for (let i = 0; i < dim; i++) d[i] = (d[i] as number) - a * (y[i] as number);
    }
    const last = ss.length - 1;
    const gamma =
      last >= 0
        ? dot(ss[last] as Float64Array, ys[last] as Float64Array) /
          dot(ys[last] as Float64Array, ys[last] as Float64Array)
        : 1 / Math.max(1, Math.sqrt(dot(g, g)));
    for (let i = 0; i < dim; i++) d[i] = (d[i] as number) * gamma;
    for (let j = 0; j < ss.length; j++) {
      const b = (rhos[j] as number) * dot(ys[j] as Float64Array, d);
      const s = ss[j] as Float64Array;
      for (let i = 0; i < dim; i++) d[i] = (d[i] as number) + (s[i] as number) * ((alphas[j] as number) - b);
    }
    for (let i = 0; i < dim; i++) d[i] = -(d[i] as number);
    let slope = dot(d, g);
    if (!(slope < 0)) {
      // Not a descent direction: restart from the gradient.
      const scale = 1 / Math.max(1, Math.sqrt(dot(g, g)));
      for (let i = 0; i < dim; i++) d[i] = -(g[i] as number) * scale;
      slope = dot(d, g);
      ss.length = 0;
      ys.length = 0;
      rhos.length = 0;
      if (!(slope < 0)) break;
    }
    let step = 1;
    let accepted = false;
    const cand = new Float64Array(dim);
    const cg = new Float64Array(dim);
    let cf = f;
    for (let tries = 0; tries < 30; tries++, step /= 2) {
      for (let i = 0; i < dim; i++) cand[i] = (x[i] as number) + step * (d[i] as number);
      cf = objective(cand, cg);
      if (cf <= f + 1e-4 * step * slope) {
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    const s = new Float64Array(dim);
    const y = new Float64Array(dim);
    for (let i = 0; i < dim; i++) {
      s[i] = (cand[i] as number) - (x[i] as number);
      y[i] = (cg[i] as number) - (g[i] as number);
    }
    const sy = dot(s, y);
    if (sy > 1e-12) {
      ss.push(s);
      ys.push(y);
      rhos.push(1 / sy);
      if (ss.length > MEMORY) {
        ss.shift();
        ys.shift();
        rhos.shift();
      }
    }
    const done = f - cf <= 1e-10 * Math.max(1, Math.abs(f));
    x = cand;
    g = cg;
    f = cf;
    if (done) break;
  }
  return x;
}
