// What createCalibration's fit costs with the state-reading candidate (issue 49) by evaluation size: the bound
// between a fit in the request and one on the account's runner (docs/decisions.md, "Large fits in the
// background"). Checks on synthetic tickets (bench/support/state-words-calibration.ts), the version near chance.
//   npx tsx bench/calibration-fit-sizes.ts [words per state, default 150] [outcomes, default 2: a check; k > 2: a pick]
//                                          [items, default 100,300,1000]
// The work column is the state-reading candidate's (MAX_STATE_WORDS_WORK bounds it; above, it is not tried).

import { MAX_STATE_WORDS_WORK } from "../schema/calibrations";
import { wordCounts } from "../schema/learned/features";
import { renderState } from "../schema/render";
import { chooseFit } from "../workers/calibrations/cross-validate";
import type { Labelled } from "../workers/calibrations/fit";
import { stateWordsWork } from "../workers/calibrations/fit-question";
import { calibrationEvidence } from "../workers/calibrations/metrics";
import { syntheticTicket } from "./support/state-words-calibration";
import { syntheticQuestion } from "./support/synthetic-question";

const words = Number(process.argv[2] ?? 150);
const sizes = (process.argv[4] ?? "100,300,1000").split(",").map(Number);
const k = Number(process.argv[3] ?? 2);
const type = k === 2 ? "check" : "pick";
const question = syntheticQuestion(k);

console.log(
  `| ${type} (${k} outcomes) items | words per state | work (of ${MAX_STATE_WORDS_WORK}) | method chosen | fit + evidence (ms) |`,
);
console.log("| ---: | ---: | ---: | --- | ---: |");
for (const n of sizes) {
  const items: Labelled[] = Array.from({ length: n }, (_, i) => {
    const y = i % k;
    const yes = y === 0;
    const p = yes ? 0.55 - (i % 7) * 0.02 : 0.5 - (i % 5) * 0.02;
    const dist =
      k === 2 ? [p, 1 - p] : Array.from({ length: k }, (_, j) => (j === 0 ? p : (1 - p) / (k - 1)));
    const state = { kind: "object", entries: [["ticket", syntheticTicket(i + 1, words, yes)]] } as const;
    // biome-ignore lint/suspicious/noExplicitAny: the bench's state literal is the wire shape renderState reads
    return { p: dist, y, words: wordCounts(renderState(state as any)) };
  });
  const work = stateWordsWork(items, type, k);
  const t0 = performance.now();
  const fit = chooseFit(type, k, items, { readState: true });
  calibrationEvidence(question, fit, items);
  const t1 = performance.now();
  console.log(`| ${n} | ${words} | ${work} | ${fit.method} | ${(t1 - t0).toFixed(0)} |`);
}
