/**
 * `EVAL_MODEL_TAG=<tag> tsx gpu-worker/eval/real/versions-real.ts <new version> <old version> [--every N] [--write]`:
 * a new exact version of another model file against an old one, on the SAME held-out real-text items (every N-th
 * item per type, default 8). The new version's raw scores come from `score-real.ts` (cached under
 * `.cache/eval/<tag>/`, its catalogue framing); per type its calibration is the train-NLL-best of identity and a
 * fitted temperature + bias (fitted on the train items of the subset); `--write` writes that artifact under the
 * version's catalogue calibration name. The old version is answered by its own engine (its framing, phrasings
 * and calibration, as served). Prints per-type metrics and per-family accuracy, both versions side by side.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { findModel } from "../../../schema/models";
import { CALIBRATION_DIR, type Calibration, loadCalibration, type QuestionType } from "../../src/calibration";
import { catalogCalibrationPath } from "../../src/calibration-pin";
import { Engine } from "../../src/engine";
import { defaultModelPath } from "../../src/model-check";
import { openScorer } from "../../src/scorer";
import { answerIndex, type EvalItem } from "../dataset/item";
import { type Report, report } from "../metrics";
import { byFamily, fitMethod, measure } from "./compare-real";
import { fmt, metricsTable } from "./markdown-real";
import { everyNth, loadRealDataset, scoreReal } from "./score-real";

const arg = (n: string) => (process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : undefined);
const [newId, oldId] = process.argv.slice(2, 4) as [string, string];
const next = findModel(newId);
if (!next?.gpu || !process.env.EVAL_MODEL_TAG) throw new Error("usage: see the header; set EVAL_MODEL_TAG");
const items = everyNth(loadRealDataset(), Number(arg("--every") ?? 8));
const held = (type: QuestionType) => items.filter((i) => i.type === type && i.split === "heldout");
const TYPES: QuestionType[] = ["pick", "rate", "check"];

// The new version: cached raw scores, calibration chosen per type by train NLL.
const rs = await scoreReal(next.gpu.framing, items, undefined, console.log);
const types = {} as Calibration["types"];
const fresh: Record<string, ReturnType<typeof measure>> = {};
for (const type of TYPES) {
  const fits = (["identity", "fitted"] as const).map((method) => {
    const fit = fitMethod(type, method, items, rs);
    const train = measure(
      type,
      method,
      fit,
      items.filter((i) => i.type === type && i.split === "train"),
      rs,
    );
    return { method, fit, trainNll: train.report.nll };
  });
  const best = fits.reduce((a, b) => (b.trainNll < a.trainNll ? b : a));
  console.log(
    `${newId} ${type}: ${fits.map((f) => `${f.method} train NLL ${fmt(f.trainNll)}`).join(", ")} → ${best.method}`,
  );
  types[type] = best.fit;
  fresh[type] = measure(type, "identity", best.fit, held(type), rs);
}
const artifact: Calibration = {
  version: next.calibration,
  framing: next.gpu.framing,
  content_free_state: "N/A",
  types,
};
const note = `Fitted by gpu-worker/eval/real/versions-real.ts on the train items of every ${arg("--every") ?? 8}-th real-text item per type; per type the train-NLL-best of identity and temperature + bias; numbers in docs/quality.md.`;
if (process.argv.includes("--write"))
  writeFileSync(
    join(CALIBRATION_DIR, `${next.calibration}.json`),
    `${JSON.stringify({ ...artifact, note }, null, 2)}\n`,
  );

// The old version: its own engine on the same held-out items, one question per call.
const scorer = await openScorer({
  modelPath: defaultModelPath(),
  threads: 1,
  sequences: 1,
  contextSize: 4096,
});
const old = new Engine(scorer, loadCalibration(catalogCalibrationPath(oldId)), oldId);
const probsOf = async (it: EvalItem): Promise<number[]> => {
  const q = { ...it.question, id: "q" } as ScoreQuestion;
  const a = (await old.score({ request_id: it.id, model: oldId, state: it.state, questions: [q] })).answers[0]
    ?.answer;
  if (a?.type === "check") return [a.probability, 1 - a.probability];
  if (a?.type === "pick") return a.probabilities.map(([, p]) => p);
  return a?.type === "rate" ? a.probabilities : [];
};
const rows: { label: string; type: string; r: Report }[] = [];
const families: string[] = [];
for (const type of TYPES) {
  const its = held(type).filter((i) => fresh[type]?.rows.some((r) => r.item.id === i.id));
  const oldRows = [];
  for (const it of its) oldRows.push({ item: it, p: await probsOf(it) });
  const oldReport = report(
    oldRows.map((r) => r.p),
    its.map(answerIndex),
    type === "check",
  );
  rows.push({ label: oldId, type, r: oldReport }, { label: newId, type, r: fresh[type]?.report as Report });
  const oldFam = new Map(byFamily(type, oldRows).map((f) => [f.family, f.report]));
  for (const f of byFamily(type, fresh[type]?.rows ?? []))
    families.push(
      `| ${type} | ${f.family} | ${f.report.n} | ${fmt(oldFam.get(f.family)?.accuracy)} | ${fmt(f.report.accuracy)} |`,
    );
}
await scorer.close();
console.log(metricsTable("version (same held-out items)", rows));
console.log(
  ["| type | family | n | accuracy old | accuracy new |", "|---|---|---|---|---|", ...families].join("\n"),
);
console.log(JSON.stringify(artifact.types));
