/**
 * The pick gate's trade-off on TRAIN only: the chosen gate (`ph-qa` partial, mix on margin + label means) fitted
 * with the computed train sample weighted w times, measured on the real train split and on the computed train
 * sample. Scores from the cache (`score-phrasings.ts`).
 *   tsx gpu-worker/eval/real/gate-sweep.ts
 */
import { fileURLToPath } from "node:url";
import { report } from "../metrics";
import { fitGate, type GateSpec, gateProbs } from "./gate-methods";
import { type Row, rows } from "./phrasing-methods";
import { phrasingSet, readPhrasingCache } from "./score-phrasings";

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cache = readPhrasingCache();
  const base = { phrasings: ["ph-qa"], mode: "partial" as const, agreement: false, bias: false };
  const spec: GateSpec = { base, mode: "mix", features: ["margin", "state_mean", "free_mean"] };
  const rt = rows(phrasingSet("train:pick", 1), base, cache);
  const ct = rows(phrasingSet("computed-train:pick", 1), base, cache);
  console.log(
    "| computed weight w | real train: accuracy | ECE-15 | NLL | mean confidence | computed train: accuracy | ECE-15 | NLL | mean confidence |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const w of [1, 2, 3, 5, 8]) {
    const fit = fitGate([...rt, ...ct.map((r) => ({ ...r, w }))], spec);
    const m = (rs: Row[]) => {
      const r = report(
        rs.map((x) => gateProbs(x, fit, spec)),
        rs.map((x) => x.answer),
        false,
      );
      return [r.accuracy, r.ece, r.nll, r.meanConfidence].map((v) => v.toFixed(3)).join(" | ");
    };
    console.log(`| ${w} | ${m(rt)} | ${m(ct)} |`);
  }
}
