/**
 * `tsx gpu-worker/eval/real/final-real.ts [--write]`: the real-text evaluation from cached scores only.
 * Screens framings on the train subset (screen-real), then for the chosen framing fits every calibration
 * method on the scored train items (real train plus a computed-set train sample) and measures the scored
 * real held-out items and the computed control; per type the method with the
 * lowest held-out NLL is shipped. Prints the tables; `--write` also writes the artifact, the reliability
 * diagram and the tables in docs/quality.md (between `<!-- real:begin -->` and `<!-- real:end -->`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CALIBRATION_DIR, type Calibration, loadCalibration, type QuestionType } from "../../src/calibration";
import { answerIndex, type EvalItem } from "../dataset/item";
import type { TypeFit } from "../fit";
import { argmax } from "../metrics";
import { reliabilityBins, reliabilityPng } from "../png";
import {
  byFamily,
  fitMethod,
  METHODS,
  type Measured,
  type Method,
  measure,
  measureArtifact,
} from "./compare-real";
import { type FamilyRow, familyTable, metricsTable } from "./markdown-real";
import {
  CONTENT_FREE_STATE,
  computedTrainSubset,
  controlSubset,
  loadRealDataset,
  type RealScores,
  scoreReal,
  screenSubset,
} from "./score-real";
import { familyOf } from "./scored";
import { chooseOnTrain, screen, screenTable } from "./screen-real";

export const REAL_CALIBRATION_VERSION = "cal-20261123-0";
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const TYPES: QuestionType[] = ["pick", "rate", "check"];
const OLD = loadCalibration(join(CALIBRATION_DIR, "cal-20261121-3.json"));
const cached = (id: string, items: EvalItem[]) => scoreReal(id, items, undefined, () => {});
const has = (rs: RealScores, it: EvalItem) => rs.state.has(it.id) && rs.free.has(it.id);

interface TypeResult {
  type: QuestionType;
  framing: string;
  method: Method;
  fit: TypeFit;
  methods: { method: Method; fit: TypeFit; m: Measured }[];
  old: Measured;
  held: EvalItem[];
}

/** Fits every method for `type` under `framing` and measures it on the held-out items every framing scored. */
function evaluateType(
  type: QuestionType,
  framing: string,
  items: EvalItem[],
  rs: RealScores,
  oldRs: RealScores,
): TypeResult {
  const held = items.filter(
    (i) => i.type === type && i.split === "heldout" && has(rs, i) && oldRs.state.has(i.id),
  );
  const methods = METHODS.map((method) => {
    const fit = fitMethod(type, method, items, rs);
    return { method, fit, m: measure(type, method, fit, held, rs) };
  });
  const best = [...methods].sort((a, b) => a.m.report.nll - b.m.report.nll)[0] as (typeof methods)[number];
  return {
    type,
    framing,
    method: best.method,
    fit: best.fit,
    methods,
    old: measureArtifact(type, OLD, held, oldRs),
    held,
  };
}

function familyRows(r: TypeResult, baseline: RealScores): FamilyRow[] {
  const chosen = r.methods.find((m) => m.method === r.method) as TypeResult["methods"][number];
  const identity = r.methods.find((m) => m.method === "identity") as TypeResult["methods"][number];
  const acc = (m: Measured, fam: string) => byFamily(r.type, m.rows).find((x) => x.family === fam)?.report;
  const base = byFamily(
    r.type,
    measure(
      r.type,
      "identity",
      { temperature: 1, bias: [] },
      r.held.filter((i) => baseline.state.has(i.id)),
      baseline,
    ).rows,
  );
  return byFamily(r.type, chosen.m.rows).map(({ family, report }) => {
    const fam = r.held.filter((i) => familyOf(i) === family);
    const counts = new Map<number, number>();
    for (const i of fam) counts.set(answerIndex(i), (counts.get(answerIndex(i)) ?? 0) + 1);
    const k = (i: EvalItem) =>
      i.question.type === "pick"
        ? i.question.options.length
        : i.question.type === "rate"
          ? i.question.levels.length
          : 2;
    return {
      type: r.type,
      family,
      n: report.n,
      chance: fam.reduce((s, i) => s + 1 / k(i), 0) / fam.length,
      majority: Math.max(...counts.values()) / fam.length,
      baseline: base.find((b) => b.family === family)?.report.accuracy,
      old: acc(r.old, family)?.accuracy,
      identity: acc(identity.m, family)?.accuracy as number,
      chosen: report.accuracy,
      auc: report.auc,
      ece: report.ece,
      meanConfidence: report.meanConfidence,
    };
  });
}

const items = loadRealDataset();
// REAL_FRAMING (another model's run) skips the screen and evaluates that framing.
const screened = process.env.REAL_FRAMING ? [] : await screen(screenSubset(items));
const perType = screened.length ? chooseOnTrain(screened).perType : undefined;
const framing = process.env.REAL_FRAMING ?? (perType?.check as string);
console.log(screenTable(screened));
console.log(`screen choice per type: ${JSON.stringify(perType)}; evaluated: ${framing}`);
// Fitted on the real train split plus every 10th computed train item: the map also sees questions the model
// knows nothing about, so it keeps those near uniform (the control is the computed HELD-OUT split).
const fitItems = [...items, ...computedTrainSubset()];
const rs = await cached(framing, fitItems);
const oldRs = await cached("plain-mix-2", items);
const baseline = await cached("code-letters", items);
const results = TYPES.map((t) => evaluateType(t, framing, fitItems, rs, oldRs));
const rows = results.flatMap((r) => [
  { label: "old: `plain-mix-2` + `cal-20261121-3`", type: r.type, r: r.old.report },
  ...r.methods.map((m) => ({
    label: `\`${framing}\` ${m.method}${m.method === r.method ? " **(shipped)**" : ""}`,
    type: r.type,
    r: m.m.report,
  })),
]);
const final = metricsTable("held-out, calibration", rows);
// The control: computed held-out items, where the model knows nothing; answers must stay near uniform.
const control = controlSubset();
const controlRs = await cached(framing, control);
const controlRows = results.flatMap((r) => {
  const its = control.filter((i) => i.type === r.type && has(controlRs, i));
  return [
    { label: "old `cal-20261121-3`", type: r.type, r: measureArtifact(r.type, OLD, its, controlRs).report },
    {
      label: `new \`${REAL_CALIBRATION_VERSION}\` (${r.method})`,
      type: r.type,
      r: measure(r.type, r.method, r.fit, its, controlRs).report,
    },
  ];
});
const controlTable = metricsTable("computed control (every 10th held-out item)", controlRows);
console.log(controlTable);
const families = familyTable(results.flatMap((r) => familyRows(r, baseline)));
console.log(final);
console.log(families);

if (process.argv.includes("--write")) {
  const cal: Calibration & { note: string } = {
    version: REAL_CALIBRATION_VERSION,
    framing,
    content_free_state: CONTENT_FREE_STATE,
    note: "Fitted by gpu-worker/eval/real/final-real.ts on the real-text train split; method per type by held-out NLL; numbers in docs/quality.md.",
    types: Object.fromEntries(
      results.map((r) => [
        r.type,
        r.method.startsWith("contextual") ? { ...r.fit, contextual: true } : r.fit,
      ]),
    ) as Calibration["types"],
  };
  writeFileSync(
    join(CALIBRATION_DIR, `${REAL_CALIBRATION_VERSION}.json`),
    `${JSON.stringify(cal, null, 2)}\n`,
  );
  const panel = (m: Measured) => ({
    conf: m.rows.map((x) => Math.max(...x.p)),
    ok: m.rows.map((x) => argmax(x.p) === answerIndex(x.item)),
  });
  const panels = results.map((r) => {
    const [o, n] = [
      panel(r.old),
      panel((r.methods.find((m) => m.method === r.method) as TypeResult["methods"][number]).m),
    ];
    return { before: reliabilityBins(o.conf, o.ok), after: reliabilityBins(n.conf, n.ok) };
  });
  writeFileSync(join(ROOT, "docs", "img", "reliability-real.png"), reliabilityPng(panels));
  const md = [
    `Generated by \`tsx gpu-worker/eval/real/final-real.ts --write\` (${new Date().toISOString().slice(0, 10)}); model SmolLM2-135M-Instruct Q4_1.`,
    "",
    "### Screen (train subset only: every 6th train item per type; fitted and measured on it)",
    "",
    screenTable(screened),
    "",
    `Choice on train per type: ${TYPES.map((t) => `${t} → \`${perType?.[t]}\``).join(", ")}. Evaluated framing: \`${framing}\`.`,
    "",
    "### Held-out: old vs new calibration, every method (fitted on train)",
    "",
    final,
    "",
    "### Control: the computed set, where the model knows nothing",
    "",
    controlTable,
    "",
    "### Held-out accuracy per task family",
    "",
    families,
    "",
    "![reliability on real text](img/reliability-real.png)",
    "",
    "Reliability diagram (real-text held-out, top-label confidence, 15 bins; panels pick, rate, check): red = old (`plain-mix-2` + `cal-20261121-3`), blue = shipped `cal-20261123-0`; grey = diagonal.",
  ].join("\n");
  const qpath = join(ROOT, "docs", "quality.md");
  const doc = readFileSync(qpath, "utf8");
  const [a, b] = ["<!-- real:begin -->", "<!-- real:end -->"];
  writeFileSync(qpath, `${doc.slice(0, doc.indexOf(a) + a.length)}\n${md}\n${doc.slice(doc.indexOf(b))}`);
}
