import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CALIBRATION_DIR, loadCalibration } from "../../../gpu-worker/src/calibration";
import { Engine } from "../../../gpu-worker/src/engine";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { CPU_CLASS, findModel } from "../../../schema/models";
import { openVersionScorer } from "../../support/version-scorer";
import recorded from "./recorded/answers.json";

// Replays of GPU originals are recomputed on the original exact version, so an older version's answers may never
// move. `recorded/answers.json`: each older calibration's answers and meter for one request, same model file,
// threads 1, one sequence, context 1024. First computed on main before svc-1.3.0's engine changes (the gate and
// relevance reads) and svc-1.3.0's before svc-1.4.0 (option descriptions read), on a machine whose best ggml CPU
// variant was not `haswell`; re-recorded once on the pinned class (docs/decisions.md, "Numerics classes").
// svc-1.5.0's (its own file, Qwen2.5-Coder-1.5B) was recorded on the pinned class when svc-1.5.1 took the alias.
// They hold on any machine that computes in that class; elsewhere (ARM, macOS, a CPU without AVX2) they skip.
const scorer: Scorer = await openScorer({
  modelPath: defaultModelPath(),
  threads: 1,
  sequences: 1,
  contextSize: 1024,
});
const qwen: Scorer = await openVersionScorer("svc-1.5.0", { contextSize: 1024 });
afterAll(async () => {
  await scorer.close();
  await qwen.close();
});
const onRecordedClass = scorer.numerics.id === recorded.numerics_class;
if (!onRecordedClass)
  console.warn(
    `versions-recorded: skipped: this machine computes in numerics class ${scorer.numerics.id}; the answers were recorded in ${recorded.numerics_class} (run \`npm run setup\` to pin the CPU variant; a CPU without AVX2, ARM and macOS cannot run it)`,
  );

const QUESTIONS: ScoreQuestion[] = [
  { id: "refund", type: "check", instructions: "Does the customer ask for a refund?", criteria: [] },
  {
    id: "mood",
    type: "rate",
    instructions: "How upset is the customer?",
    criteria: [],
    levels: ["calm", "annoyed", "angry"],
  },
  {
    id: "team",
    type: "pick",
    instructions: "Which team should handle it?",
    criteria: [],
    options: [
      { label: "billing", description: null },
      { label: "shipping", description: null },
      { label: "technical support", description: null },
    ],
  },
];
const STATE = "The customer wrote: my parcel arrived broken, I want my money back.";

/** Each older calibration's answers and meter for the request above, on the pinned CPU class (docs/decisions.md). */
const RECORDED = recorded.recorded as Record<string, { answers: unknown; meter: unknown }>;

const answer = async (calibration: string, questions = QUESTIONS, on = scorer) =>
  new Engine(on, loadCalibration(join(CALIBRATION_DIR, `${calibration}.json`)), calibration).score({
    request_id: "r0",
    model: calibration,
    state: STATE,
    questions,
  });

it("the answers are recorded in the numerics class the catalogue serves every svc-1 version on", () => {
  expect(recorded.numerics_class).toBe(CPU_CLASS);
});

describe.skipIf(!onRecordedClass)(
  "older exact versions answer as they did at their release (replays stay byte-identical)",
  () => {
    it.each(["svc-1.0.0", "svc-1.1.0", "svc-1.2.0", "svc-1.3.0"])("%s", async (id) => {
      const cal = findModel(id)?.calibration as string;
      const r = await answer(cal);
      expect({ answers: r.answers, meter: r.meter }).toEqual(RECORDED[cal]);
    });

    it("svc-1.3.0 changes only rate: its pick and check answers are svc-1.2.0's", async () => {
      const r = await answer(findModel("svc-1.3.0")?.calibration as string);
      const old = RECORDED["cal-20261123-1"] as { answers: { id: string }[] };
      expect(r.answers.filter((a) => a.id !== "mood")).toEqual(old.answers.filter((a) => a.id !== "mood"));
      expect(r.answers.find((a) => a.id === "mood")).not.toEqual(old.answers.find((a) => a.id === "mood"));
    });

    it("svc-1.4.0 reads option descriptions: without any it answers and meters as svc-1.3.0; a pick sent as keys with descriptions names the option its description fits", async () => {
      const cal = findModel("svc-1.4.0")?.calibration as string;
      const r = await answer(cal);
      expect({ answers: r.answers, meter: r.meter }).toEqual(RECORDED["cal-20261123-2"]);

      const team = QUESTIONS[2] as Extract<ScoreQuestion, { type: "pick" }>;
      const keyed: ScoreQuestion = {
        ...team,
        options: team.options.map((o, i) => ({ label: `team_${i + 1}`, description: o.label })),
      };
      const now = (await answer(cal, [keyed])).answers[0]?.answer;
      const before = (await answer(findModel("svc-1.3.0")?.calibration as string, [keyed])).answers[0]
        ?.answer;
      expect(now).toMatchObject({ choice: "team_2" }); // shipping, as the labelled pick answers
      expect(before).not.toMatchObject({ choice: "team_2" });
    });

    it("svc-1.5.0 (Qwen2.5-Coder-1.5B)", async () => {
      const cal = findModel("svc-1.5.0")?.calibration as string;
      const r = await answer(cal, QUESTIONS, qwen);
      expect({ answers: r.answers, meter: r.meter }).toEqual(RECORDED[cal]);
    });

    it("svc-1.5.1 refits only check (a yes bias): svc-1.5.0's meter, pick and rate answers; check moved", async () => {
      const old = RECORDED[findModel("svc-1.5.0")?.calibration as string] as {
        answers: { id: string }[];
        meter: unknown;
      };
      const r = await answer(findModel("svc-1.5.1")?.calibration as string, QUESTIONS, qwen);
      expect(r.meter).toEqual(old.meter);
      expect(r.answers.filter((a) => a.id !== "refund")).toEqual(
        old.answers.filter((a) => a.id !== "refund"),
      );
      expect(r.answers.find((a) => a.id === "refund")).not.toEqual(
        old.answers.find((a) => a.id === "refund"),
      );
    });
  },
);
