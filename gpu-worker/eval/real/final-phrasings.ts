/**
 * `cal-20261123-1` (svc-1.2.0): per type (pick, check) the phrasing method with the lowest NLL on the train
 * items (real train split + the computed train sample: a method sure of itself where the model knows nothing
 * pays for it there), never on held-out; rate keeps `cal-20261123-0`'s map. Tables (old and new calibration,
 * held-out and control, per family) into docs/quality.md between `<!-- phrasings:begin/end -->`, reliability
 * diagram into docs/img/reliability-phrasings.png. Scores come from the cache only (`score-phrasings.ts`).
 *   tsx gpu-worker/eval/real/final-phrasings.ts [--write]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  applyCalibration,
  CALIBRATION_DIR,
  type Calibration,
  loadCalibration,
  type QuestionType,
  subtractContentFree,
} from "../../src/calibration";
import { answerIndex, type EvalItem } from "../dataset/item";
import { nll, type Report, report } from "../metrics";
import { type reliabilityBins, reliabilityPng } from "../png";
import { metricsTable } from "./markdown-real";
import { fitMethod, type MethodSpec, probs, rows } from "./phrasing-methods";
import { lookup, type PhrasedScores, phrasingSet, readPhrasingCache } from "./score-phrasings";
import { familyChangeRow, familyOf, type Scored, scoredBins, scoredReport } from "./scored";

export const PHRASED_CALIBRATION_VERSION = "cal-20261123-1";
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const TYPES: QuestionType[] = ["pick", "check"];
/** The phrasings scored on every set (the first sets also have the others; the machine's time decided). */
export const USED = ["ph-qa", "ph-q-a", "ph-yes-no"];

/** An artifact's map on the `ph-qa` scores (= `plain-mix-2`'s pick and check prompt). */
function artifactRows(
  type: QuestionType,
  cal: Calibration,
  items: EvalItem[],
  cache: Map<string, PhrasedScores>,
): Scored[] {
  return items.flatMap((item) => {
    const s = lookup(cache, "ph-qa", item, false);
    const c = lookup(cache, "ph-qa", item, true);
    if (!s || (cal.types[type].contextual && !c)) return [];
    const x = cal.types[type].contextual && c ? subtractContentFree(s.scores, c.scores) : s.scores;
    return [{ item, p: applyCalibration(type, x, s.tokens, cal) }];
  });
}

function specs(check: boolean): [string, MethodSpec][] {
  const out: [string, MethodSpec][] = [];
  for (const mode of ["contextual", "partial", "raw"] as const) {
    for (const id of USED)
      out.push([`\`${id}\` ${mode}`, { phrasings: [id], mode, agreement: false, bias: check }]);
    out.push([`3 phrasings ${mode}`, { phrasings: USED, mode, agreement: false, bias: check }]);
    out.push([`3 phrasings ${mode} + agreement`, { phrasings: USED, mode, agreement: true, bias: check }]);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cache = readPhrasingCache();
  const old0 = loadCalibration(join(CALIBRATION_DIR, "cal-20261123-0.json"));
  const old3 = loadCalibration(join(CALIBRATION_DIR, "cal-20261121-3.json"));
  const screenRows: { label: string; type: string; r: Report }[] = [];
  const heldRows: { label: string; type: string; r: Report }[] = [];
  const controlRows: { label: string; type: string; r: Report }[] = [];
  const familyLines: string[] = [];
  const panels: { before: ReturnType<typeof reliabilityBins>; after: ReturnType<typeof reliabilityBins> }[] =
    [];
  const types: Calibration["types"] = { ...old0.types };
  const choices: string[] = [];
  for (const type of TYPES) {
    const check = type === "check";
    const realTrain = phrasingSet(`train:${type}`);
    const compTrain = phrasingSet(`computed-train:${type}`);
    const held = phrasingSet(`heldout:${type}`);
    const control = phrasingSet(`control:${type}`);
    // Only items every method has scores for, so that all rows compare the same items.
    const full = (xs: EvalItem[]) =>
      xs.filter((it) => USED.every((id) => lookup(cache, id, it, false) && lookup(cache, id, it, true)));
    const [rt, ct, ho, co] = [full(realTrain), full(compTrain), full(held), full(control)];
    let best:
      | {
          name: string;
          spec: MethodSpec;
          fit: ReturnType<typeof fitMethod>;
          nll: number;
          per: Map<string, number>;
        }
      | undefined;
    for (const [name, spec] of specs(check)) {
      const train = [...rows(rt, spec, cache), ...rows(ct, spec, cache)];
      const fit = fitMethod(train, spec);
      const per = new Map(
        train.map((r) => [r.item.id, -Math.log(Math.max(1e-12, probs(r, fit, spec)[r.answer] as number))]),
      );
      const trainNll = nll(
        train.map((r) => probs(r, fit, spec)),
        train.map((r) => r.answer),
      );
      const show = (xs: EvalItem[]) => {
        const rs = rows(xs, spec, cache);
        return report(
          rs.map((r) => probs(r, fit, spec)),
          rs.map((r) => r.answer),
          check,
        );
      };
      screenRows.push({ label: `${name} (train NLL ${trainNll.toFixed(3)})`, type, r: show(rt) });
      screenRows.push({ label: `${name}: computed train sample`, type, r: show(ct) });
      if (!best || trainNll < best.nll) best = { name, spec, fit, nll: trainNll, per };
    }
    if (!best) throw new Error(`no scores for ${type}`);
    // The incumbent (`cal-20261123-0`) is replaced only when the best method's train NLL is lower by more than
    // twice the standard error of the paired per-item difference: at these sample sizes a smaller gain is noise.
    const incumbent = artifactRows(type, old0, [...rt, ...ct], cache);
    const diffs = incumbent.map(
      (x) =>
        -Math.log(Math.max(1e-12, x.p[answerIndex(x.item)] as number)) - (best.per.get(x.item.id) as number),
    );
    const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
    const sd = Math.sqrt(diffs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, diffs.length - 1));
    const se = sd / Math.sqrt(diffs.length);
    const replace = mean > 2 * se;
    choices.push(
      `${type}: best on train ${best.name} (train NLL ${best.nll.toFixed(3)}); gain over \`cal-20261123-0\` ${mean.toFixed(3)} ± ${se.toFixed(3)} (SE, n ${diffs.length}) → ${replace ? "**replaced**" : "**kept** (gain within noise)"}`,
    );
    const chosen = best;
    const newRows = (xs: EvalItem[]): Scored[] =>
      replace
        ? rows(xs, chosen.spec, cache).map((r) => ({ item: r.item, p: probs(r, chosen.fit, chosen.spec) }))
        : artifactRows(type, old0, xs, cache);
    const newLabel = replace ? chosen.name : "`cal-20261123-0`'s map kept";
    const identity = { ...old0, types: { ...old0.types, [type]: { temperature: 1, bias: [] } } };
    for (const [label, f] of [
      ["`ph-qa` raw, identity", (xs: EvalItem[]) => artifactRows(type, identity, xs, cache)],
      ["old `cal-20261121-3` (svc-1.0.0)", (xs: EvalItem[]) => artifactRows(type, old3, xs, cache)],
      ["old `cal-20261123-0` (svc-1.1.0)", (xs: EvalItem[]) => artifactRows(type, old0, xs, cache)],
      [`**new \`${PHRASED_CALIBRATION_VERSION}\`**: ${newLabel}`, newRows],
    ] as const) {
      heldRows.push({ label, type, r: scoredReport(f(ho), check) });
      controlRows.push({ label, type, r: scoredReport(f(co), check) });
    }
    const before = artifactRows(type, old0, ho, cache);
    const after = newRows(ho);
    panels.push({ before: scoredBins(before), after: scoredBins(after) });
    for (const fam of [...new Set(ho.map(familyOf))].sort())
      familyLines.push(familyChangeRow(type, fam, before, after, check));
    if (replace)
      types[type] = {
        temperature: Math.round(1e6 / chosen.fit.scale) / 1e6,
        bias: chosen.fit.bias,
        contextual: chosen.spec.mode !== "raw",
        phrasings: chosen.spec.phrasings,
        ...(chosen.fit.free_weight !== undefined && { content_free_weight: chosen.fit.free_weight }),
        agreement_slope: chosen.fit.agreement_slope,
      };
    console.log(`${type}: chosen ${chosen.name} (train NLL ${chosen.nll.toFixed(4)})`, chosen.fit);
  }
  const cal: Calibration & { note: string } = {
    version: PHRASED_CALIBRATION_VERSION,
    framing: old0.framing,
    content_free_state: old0.content_free_state,
    note: "Fitted by gpu-worker/eval/real/final-phrasings.ts: pick and check chosen by train NLL (real train + computed train sample) among phrasing methods; rate as cal-20261123-0. Numbers in docs/quality.md.",
    types,
  };
  const md = [
    `Generated by \`tsx gpu-worker/eval/real/final-phrasings.ts --write\` (${new Date().toISOString().slice(0, 10)}); model SmolLM2-135M-Instruct Q4_1; scores cached by \`score-phrasings.ts\`.`,
    "",
    "#### Screen on train (real train items, and the computed train sample; each method fitted on both; the train NLL in brackets is on both together)",
    "",
    metricsTable("method (fitted on train)", screenRows),
    "",
    ...choices.map((c) => `- ${c}`),
    "",
    "#### Held-out real text: before / after",
    "",
    metricsTable("held-out real text", heldRows),
    "",
    "#### Control (computed set, held-out; the model knows nothing): before / after",
    "",
    metricsTable("computed control", controlRows),
    "",
    "#### Held-out per family: `cal-20261123-0` → new (ECE-15 noise floor of the new one in brackets)",
    "",
    "| type | family | n | accuracy | AUC | ECE-15 (floor) | Brier | mean confidence |",
    "|---|---|---|---|---|---|---|---|",
    ...familyLines,
    "",
    "![reliability, phrasings](img/reliability-phrasings.png)",
    "",
    `Reliability diagram (held-out real text, top-label confidence, 15 bins; panels pick, check): red = \`cal-20261123-0\`, blue = \`${PHRASED_CALIBRATION_VERSION}\`; grey = diagonal.`,
  ].join("\n");
  if (process.argv.includes("--write")) {
    writeFileSync(
      join(CALIBRATION_DIR, `${PHRASED_CALIBRATION_VERSION}.json`),
      `${JSON.stringify(cal, null, 2)}\n`,
    );
    writeFileSync(join(ROOT, "docs", "img", "reliability-phrasings.png"), reliabilityPng(panels));
    const qpath = join(ROOT, "docs", "quality.md");
    const doc = readFileSync(qpath, "utf8");
    const [a, b] = ["<!-- phrasings:begin -->", "<!-- phrasings:end -->"];
    if (doc.includes(a))
      writeFileSync(qpath, `${doc.slice(0, doc.indexOf(a) + a.length)}\n${md}\n${doc.slice(doc.indexOf(b))}`);
  } else console.log(md);
}
