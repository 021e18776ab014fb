/**
 * The phrasing experiments (issue #13) from cached scores only (`score-phrasings.ts`): per type, every method
 * fitted on the real train split plus the computed train sample, screened on train, and measured on the real
 * held-out split and on the computed control.
 *   tsx gpu-worker/eval/real/phrasings-report.ts [--json out.json]
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { PhraseMethod, QuestionType } from "../../src/calibration";
import type { Report } from "../metrics";
import { fitMethod, type MethodSpec, measureRows, type Row, rows } from "./phrasing-methods";
import { PHRASING_IDS, phrasingSet, readPhrasingCache } from "./score-phrasings";

export interface Candidate {
  name: string;
  type: QuestionType;
  spec: MethodSpec;
  fit: PhraseMethod;
  train: Report;
  heldout: Report;
  control: Report;
  /** Rows kept for per-family tables and diagrams. */
  heldoutRows: Row[];
  controlRows: Row[];
}

export const SETS = {
  realTrain: "train",
  computedTrain: "computed-train",
  heldout: "heldout",
  control: "control",
};

export function candidates(types: QuestionType[] = ["pick", "check"]): Candidate[] {
  const cache = readPhrasingCache();
  const out: Candidate[] = [];
  for (const type of types) {
    const realTrain = phrasingSet(`${SETS.realTrain}:${type}`);
    const compTrain = phrasingSet(`${SETS.computedTrain}:${type}`);
    const heldout = phrasingSet(`${SETS.heldout}:${type}`);
    const control = phrasingSet(`${SETS.control}:${type}`);
    const specs: [string, MethodSpec][] = [];
    const check = type === "check";
    for (const contextual of [true, false]) {
      const tag = contextual ? "contextual" : "raw";
      for (const id of PHRASING_IDS)
        specs.push([`${id} ${tag}`, { phrasings: [id], contextual, agreement: false, bias: check }]);
      specs.push([`all ${tag}`, { phrasings: PHRASING_IDS, contextual, agreement: false, bias: check }]);
      specs.push([
        `all ${tag} + agreement`,
        { phrasings: PHRASING_IDS, contextual, agreement: true, bias: check },
      ]);
    }
    for (const [name, spec] of specs) {
      const train = [...rows(realTrain, spec, cache), ...rows(compTrain, spec, cache)];
      if (!train.length) continue;
      const fit = fitMethod(train, spec);
      const h = rows(heldout, spec, cache);
      const c = rows(control, spec, cache);
      out.push({
        name,
        type,
        spec,
        fit,
        train: measureRows(rows(realTrain, spec, cache), fit, check),
        heldout: measureRows(h, fit, check),
        control: measureRows(c, fit, check),
        heldoutRows: h,
        controlRows: c,
      });
    }
  }
  return out;
}

const f3 = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "–" : v.toFixed(3));
const line = (r: Report) =>
  `${r.n} | ${f3(r.accuracy)} | ${f3(r.auc)} | ${f3(r.ece)} | ${f3(r.eceFloor)} | ${f3(r.brier)} | ${f3(r.nll)} | ${f3(r.meanConfidence)}`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cs = candidates();
  console.log(
    "| method | type | fit (scale, slope, bias) | split | n | acc | AUC | ECE | floor | Brier | NLL | conf |",
  );
  for (const c of cs)
    for (const [split, r] of [
      ["train", c.train],
      ["heldout", c.heldout],
      ["control", c.control],
    ] as const)
      console.log(
        `| ${c.name} | ${c.type} | ${c.fit.scale}, ${c.fit.agreement_slope}, [${c.fit.bias.join(", ")}] | ${split} | ${line(r)} |`,
      );
  const i = process.argv.indexOf("--json");
  if (i > 0)
    writeFileSync(
      process.argv[i + 1] as string,
      JSON.stringify(
        cs.map(({ heldoutRows, controlRows, ...c }) => c),
        null,
        1,
      ),
    );
}
