/**
 * `tsx gpu-worker/eval/real/descriptions.ts [every-nth]`: are option descriptions read? Through the Engine with
 * `svc-1.3.0`'s calibration maps, pick phrasings swapped: the held-out real picks as written (meaningful labels,
 * no descriptions); the same picks as a caller with machine keys sends them (labels `option_1`…, the original
 * label as the description); and the demo's topic pick (scripts/stack/demo-decide.ts: labels are words,
 * descriptions short phrases) on its support messages. Prints accuracy, NLL and mean confidence per phrasing set
 * (docs/quality.md, "Option descriptions are read").
 */
import { join } from "node:path";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { ALIASES, findModel } from "../../../schema/models";
import { DEMO_TOPIC_CASES, DEMO_TOPIC_QUESTION } from "../../../scripts/stack/demo-decide";
import { CALIBRATION_DIR, type Calibration, loadCalibration } from "../../src/calibration";
import { Engine } from "../../src/engine";
import { defaultModelPath } from "../../src/model-check";
import { openScorer } from "../../src/scorer";
import { answerIndex, type EvalItem } from "../dataset/item";
import { type Report, report } from "../metrics";
import { everyNth, loadRealDataset } from "./score-real";

const EVERY = Number(process.argv[2] ?? 1);

const keyed = (q: ScoreQuestion): ScoreQuestion =>
  q.type === "pick"
    ? { ...q, options: q.options.map((o, i) => ({ label: `option_${i + 1}`, description: o.label })) }
    : q;

/** The pick phrasings compared (the shipped calibration's map, only the phrasings swapped). */
const CANDIDATES: string[][] = [["ph-qa-described"], ["ph-qa-label-described"], ["ph-qa", "ph-qa-described"]];

interface Case {
  state: string;
  question: ScoreQuestion;
  want: number;
}

/** The engine's pick answers on `cases`, measured like every other evaluation here (metrics.ts). */
async function measure(engine: Engine, version: string, cases: Case[]): Promise<Report> {
  const probs: number[][] = [];
  for (const [i, c] of cases.entries()) {
    const r = await engine.score({
      request_id: `d${i}`,
      model: version,
      state: c.state,
      questions: [c.question],
    });
    const a = r.answers[0]?.answer;
    if (a?.type !== "pick") throw new Error("no pick answer");
    probs.push(a.probabilities.map(([, v]) => v));
  }
  return report(
    probs,
    cases.map((c) => c.want),
    false,
  );
}

const row = (name: string, r: Report) =>
  `| ${name} | ${r.accuracy.toFixed(3)} | ${r.nll.toFixed(3)} | ${r.meanConfidence.toFixed(3)} |`;

async function main(): Promise<void> {
  const version = ALIASES["svc-1"] as string;
  const shippedId = findModel("svc-1.3.0")?.calibration as string;
  const shipped = loadCalibration(join(CALIBRATION_DIR, `${shippedId}.json`));
  const withPhrasings = (phrasings: string[]): Calibration => ({
    ...shipped,
    types: { ...shipped.types, pick: { ...shipped.types.pick, phrasings } },
  });
  const scorer = await openScorer({
    modelPath: defaultModelPath(),
    threads: 2,
    sequences: 1,
    contextSize: 2048,
  });
  const held = everyNth(
    loadRealDataset().filter((it: EvalItem) => it.type === "pick" && it.split === "heldout"),
    EVERY,
  ).map((it) => ({
    state: it.state,
    question: { ...it.question, id: "q" } as ScoreQuestion,
    want: answerIndex(it),
  }));
  const keyedHeld = held.map((c) => ({ ...c, question: keyed(c.question) }));
  const labels = DEMO_TOPIC_QUESTION.options.map((o) => o.label);
  const demo = DEMO_TOPIC_CASES.map(([state, label]) => ({
    state,
    question: DEMO_TOPIC_QUESTION,
    want: labels.indexOf(label),
  }));
  console.log(`held-out real picks: ${held.length} (every ${EVERY}); calibration maps of ${shippedId}`);
  console.log("| options as sent, pick phrasings | accuracy | NLL | mean confidence (max p) |");
  console.log("| --- | --- | --- | --- |");
  const shippedEngine = new Engine(scorer, shipped, version);
  const sets: [string, Case[]][] = [
    ["real picks as keys + descriptions", keyedHeld],
    ["demo topic pick (labels + descriptions)", demo],
  ];
  console.log(
    row(
      "real picks as written (labels, no descriptions), `ph-qa` (svc-1.3.0)",
      await measure(shippedEngine, version, held),
    ),
  );
  for (const [name, cases] of sets) {
    console.log(row(`${name}, \`ph-qa\` (svc-1.3.0)`, await measure(shippedEngine, version, cases)));
    for (const c of CANDIDATES) {
      const engine = new Engine(scorer, withPhrasings(c), version);
      console.log(row(`${name}, \`${c.join(" + ")}\``, await measure(engine, version, cases)));
    }
  }
  await scorer.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
