import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CALIBRATION_DIR, type Calibration, type QuestionType } from "../src/calibration";
import { FRAMINGS } from "../src/framings";
import { answerIndex, type EvalItem } from "./dataset/item";
import { bySource, evaluateType, type TypeEval } from "./evaluate";
import { compareTable, finalTable, sourceTable } from "./markdown";
import { argmax } from "./metrics";
import { VARIANTS } from "./plan";
import { reliabilityBins, reliabilityPng } from "./png";
import type { ScoredItem } from "./score-cache";

export const CALIBRATION_VERSION = "cal-20261121-3";
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TYPES: QuestionType[] = ["pick", "rate", "check"];

export interface EvalInput {
  items: EvalItem[];
  subset: EvalItem[];
  stride: number;
  compared: Map<string, Map<string, ScoredItem>>;
  finals: Map<string, Map<string, ScoredItem>>;
}

export interface Row {
  framing: string;
  e: TypeEval;
  /** Which items the row covers (final tables). */
  scope?: string;
}

/** Per type, the framing with the lowest calibrated train NLL, restricted to framings sharing one state prefix. */
function chooseFramings(rows: Row[]): { perType: Record<QuestionType, string>; framing: string } {
  const family = (id: string) => JSON.stringify(FRAMINGS[id]?.statePrefix("STATE"));
  const families = [...new Set(rows.map((r) => family(r.framing)))];
  let best: { total: number; perType: Record<QuestionType, string> } | undefined;
  for (const fam of families) {
    const perType = {} as Record<QuestionType, string>;
    let total = 0;
    for (const t of TYPES) {
      const cands = rows.filter(
        (r) => r.e.type === t && family(r.framing) === fam && FRAMINGS[r.framing]?.mode === "label",
      );
      const top = cands.sort((a, b) => a.e.trainFitNll - b.e.trainFitNll)[0];
      if (!top) total = Number.POSITIVE_INFINITY;
      else {
        perType[t] = top.framing;
        total += top.e.trainFitNll;
      }
    }
    if (!best || total < best.total) best = { total, perType };
  }
  if (!best) throw new Error("no framing evaluated");
  const ids = new Set(Object.values(best.perType));
  const single = ids.size === 1 ? [...ids][0] : undefined;
  const composite = Object.values(FRAMINGS).find(
    (f) => f.parts && TYPES.every((t) => f.parts?.[t] === best?.perType[t]),
  );
  const framing = single ?? composite?.id;
  if (!framing && process.argv.includes("--dry"))
    return { perType: best.perType, framing: "(composite needed)" };
  if (!framing)
    throw new Error(
      `winner needs a composite framing for ${JSON.stringify(best.perType)}; add it to framings.ts`,
    );
  return { perType: best.perType, framing };
}

/** Runs the comparison and the final fit, writes the artifact, the PNG and the tables in docs/quality.md. */
export async function evaluateAndWrite(input: EvalInput, log = console.log, dry = false): Promise<void> {
  const rows: Row[] = [];
  for (const v of VARIANTS) {
    const res = input.compared.get(v.framing.id);
    if (!res) continue;
    for (const t of v.types) {
      const e = evaluateType(t, input.subset, res);
      if (e) rows.push({ framing: v.framing.id, e });
    }
  }
  if (dry) log(compareTable(rows));
  // Finalists scored on every item of a type are compared on the full train split; the subset only screens.
  const fullRows: Row[] = [];
  for (const [id, res] of input.finals)
    for (const t of TYPES) {
      const complete = input.items.every((i) => i.type !== t || res.has(i.id));
      const e = complete ? evaluateType(t, input.items, res) : undefined;
      if (e) fullRows.push({ framing: id, e, scope: "full" });
    }
  const candidates = TYPES.flatMap((t) => {
    const full = fullRows.filter((r) => r.e.type === t && FRAMINGS[r.framing]?.mode === "label");
    return full.length ? full : rows.filter((r) => r.e.type === t);
  });
  const { perType, framing } = chooseFramings(candidates);
  log(`winner: ${framing} ${JSON.stringify(perType)}`);

  const finals: Row[] = [];
  const baseline: Row[] = [];
  for (const t of TYPES) {
    const id = perType[t];
    const full = fullRows.find((r) => r.framing === id && r.e.type === t);
    const sub = rows.find((r) => r.framing === id && r.e.type === t);
    const chosen = full ?? (sub && { ...sub, scope: `subset 1/${input.stride}` });
    if (chosen) finals.push(chosen);
    const b = fullRows.find((r) => r.framing === "code-letters" && r.e.type === t);
    if (b) baseline.push(b);
  }
  const runnersUp = fullRows.filter(
    (r) => FRAMINGS[r.framing]?.mode === "label" && perType[r.e.type] !== r.framing,
  );

  const cal: Calibration & { note: string } = {
    version: CALIBRATION_VERSION,
    framing,
    note: `Fitted by gpu-worker/eval (npm run eval) on the train split; held-out numbers in docs/quality.md.`,
    types: Object.fromEntries(finals.map((r) => [r.e.type, r.e.fit])) as Calibration["types"],
  };
  if (dry) {
    log(finalTable(finals, "chosen framing"));
    log(JSON.stringify(cal));
    return;
  }
  writeFileSync(join(CALIBRATION_DIR, `${CALIBRATION_VERSION}.json`), `${JSON.stringify(cal, null, 2)}\n`);

  const panels = finals.map((r) => {
    const top = (ps: number[][]) => ps.map((p) => Math.max(...p));
    const ok = (ps: number[][]) =>
      ps.map((p, i) => argmax(p) === answerIndex((r.e.heldout[i] as { item: EvalItem }).item));
    const before = r.e.heldout.map((h) => h.before);
    const after = r.e.heldout.map((h) => h.after);
    return {
      before: reliabilityBins(top(before), ok(before)),
      after: reliabilityBins(top(after), ok(after)),
    };
  });
  writeFileSync(join(ROOT, "docs", "img", "reliability.png"), reliabilityPng(panels));

  const md = [
    `Generated by \`npm run eval\` (${new Date().toISOString().slice(0, 10)}); model SmolLM2-135M-Instruct Q4_1.`,
    "",
    `### Framing comparison (stratified subset: every ${input.stride}th item per type; fit on its train part, metrics on its held-out part)`,
    "",
    compareTable(rows),
    "",
    `**Chosen:** \`${framing}\` (per type: ${TYPES.map((t) => `${t} → \`${perType[t]}\``).join(", ")}), by calibrated train NLL among framings that share a state prefix.`,
    "",
    `### Final: \`${CALIBRATION_VERSION}\` on the held-out split`,
    "",
    finalTable(finals, "chosen framing"),
    "",
    runnersUp.length ? `${finalTable(runnersUp, "finalist not chosen (higher train NLL)")}\n` : "",
    baseline.length
      ? finalTable(baseline, "answer-code baseline (code-letters), full set")
      : "_answer-code baseline: see the comparison table (subset)._",
    "",
    "### Held-out accuracy by generator (calibrated; chosen framing vs the answer-code baseline)",
    "",
    sourceTable(
      finals.flatMap((r) => {
        const base = baseline.find((b) => b.e.type === r.e.type);
        const baseAcc = new Map(base ? bySource(base.e).map((s) => [s.source, s.accuracy]) : []);
        return bySource(r.e).map((s) => ({ type: r.e.type, ...s, baseline: baseAcc.get(s.source) }));
      }),
    ),
    "",
    "![reliability](img/reliability.png)",
    "",
    "Reliability diagram (held-out, top-label confidence, 15 bins; panels pick, rate, check): x = mean confidence in the bin, y = accuracy, square area ∝ items; red = raw scores, blue = calibrated; grey = diagonal.",
  ].join("\n");
  const qpath = join(ROOT, "docs", "quality.md");
  const doc = readFileSync(qpath, "utf8");
  const [a, b] = ["<!-- eval:begin -->", "<!-- eval:end -->"];
  writeFileSync(qpath, `${doc.slice(0, doc.indexOf(a) + a.length)}\n${md}\n${doc.slice(doc.indexOf(b))}`);
  log(finalTable(finals, "chosen framing"));
}
