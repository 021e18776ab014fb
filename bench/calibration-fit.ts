// What createCalibration's fit costs in the Worker's CPU for the largest evaluation (1,000 items): the method
// choice by 5-fold cross-validated NLL, the final fit and both metric sets, per question shape.
//   npx tsx bench/calibration-fit.ts

import { Rng } from "../schema/rng";
import { chooseFit } from "../workers/calibrations/cross-validate";
import type { Labelled } from "../workers/calibrations/fit";
import { calibrationMetrics } from "../workers/calibrations/metrics";
import { syntheticQuestion } from "./support/synthetic-question";

/** `n` answers over `k` outcomes whose version favours the right one, too softly (seeded). */
function items(n: number, k: number, seed: number): Labelled[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const y = Math.floor(rng.next() * k);
    const z = Array.from({ length: k }, (_, i) => rng.next() + (i === y ? 1.5 : 0) + (i === 0 ? 0.5 : 0));
    const e = z.map((v) => Math.exp(v));
    const s = e.reduce((a, b) => a + b, 0);
    return { p: e.map((v) => v / s), y };
  });
}

console.log("| question | items | method chosen | fit (ms) | metrics (ms) | total (ms) |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const [label, k] of [
  ["check", 2],
  ["pick, 4 options", 4],
  ["pick, 100 options (a bias per option is tried)", 100],
  ["pick, 255 options (temperature only)", 255],
] as const) {
  const data = items(1000, k, k);
  const type = k === 2 ? "check" : "pick";
  const t0 = performance.now();
  const fit = chooseFit(type, k, data);
  const t1 = performance.now();
  calibrationMetrics(
    syntheticQuestion(k),
    data.map((e) => e.p),
    data,
  );
  calibrationMetrics(syntheticQuestion(k), fit.crossValidated, data);
  const t2 = performance.now();
  console.log(
    `| ${label} | 1,000 | ${fit.method} | ${(t1 - t0).toFixed(0)} | ${(t2 - t1).toFixed(0)} | ${(t2 - t0).toFixed(0)} |`,
  );
}
