import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCalibration } from "../../../gpu-worker/src/calibration";
import { catalogCalibrationPath } from "../../../gpu-worker/src/calibration-pin";
import { getFraming } from "../../../gpu-worker/src/framings";
import { prefixReuseMeasuredOn } from "../../../gpu-worker/src/prefix-reuse";
import type { RawScores, Scorer } from "../../../gpu-worker/src/scorer";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { ALIASES } from "../../../schema/models";
import { DEMO_DECIDE, DEMO_REFUND_QUESTION, DEMO_TOPIC_QUESTION } from "../../../scripts/stack/demo-decide";
import { openVersionScorer } from "../../support/version-scorer";

// A sequence keeps the head of the state prefix the request before it evaluated, where that gives the same bits
// as evaluating from position 0 (gpu-worker/src/prefix-reuse.ts). Checked on the default alias's model (its
// framing starts every prefix with the same system turn) against a scorer that never keeps anything: short
// states, states of ≥ 64 tokens (the tiled attention kernel), a state asked twice, and a short one after a long one.
const version = ALIASES["svc-1"] as string;
const framing = getFraming(loadCalibration(catalogCalibrationPath(version)).framing);
const open = (reusePrefixes: boolean) => openVersionScorer(version, { contextSize: 1024, reusePrefixes });
const reusing: Scorer = await open(true);
const fresh: Scorer = await open(false);
afterAll(async () => {
  await reusing.close();
  await fresh.close();
});
const measured = prefixReuseMeasuredOn(reusing.numerics);
if (!measured)
  console.warn(
    `prefix-reuse: skipped: numerics class ${reusing.numerics.id} is not the one the rules were measured on (run \`npm run setup\` to pin the CPU variant)`,
  );

const QUESTIONS: ScoreQuestion[] = [DEMO_TOPIC_QUESTION, DEMO_REFUND_QUESTION];
const lines = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Order ${4100 + i}: ${topic}, reported on day ${i + 1}.`).join("\n");
/** In order: each is answered right after the one before it, on the reusing scorer's only sequence. */
const STATES: [name: string, state: string, keeps: "some" | "none"][] = [
  ["the README's state", DEMO_DECIDE.state, "none"],
  ["another short state: the system turn is kept", "The customer wrote: thanks, all good!", "some"],
  [
    "a state of ≥ 64 tokens after a short one: nothing kept (another attention kernel)",
    lines("parcel lost", 4),
    "none",
  ],
  [
    "another long state: the system turn and the common start are kept",
    `${lines("parcel lost", 2)}\n${lines("refund asked", 3)}`,
    "some",
  ],
  [
    "the same long state again: all but its last 64 or so tokens",
    `${lines("parcel lost", 2)}\n${lines("refund asked", 3)}`,
    "some",
  ],
  ["a short state after a long one: nothing kept", DEMO_DECIDE.state, "none"],
];

describe.skipIf(!measured)(
  "prefix reuse: a kept prefix head answers bit for bit as evaluating from position 0",
  () => {
    const answers: { kept: RawScores; whole: RawScores; keptTokens: number }[] = [];
    beforeAll(async () => {
      for (const [, state] of STATES) {
        const before = reusing.keptTokens?.() ?? 0;
        const kept = await reusing.rawScores(state, QUESTIONS, framing);
        const keptTokens = (reusing.keptTokens?.() ?? 0) - before;
        answers.push({ kept, whole: await fresh.rawScores(state, QUESTIONS, framing), keptTokens });
      }
    }, 300_000);

    it.each(STATES.map(([name, , keeps], i) => [name, keeps, i] as const))("%s (kept: %s)", (_, keeps, i) => {
      const { kept, whole, keptTokens } = answers[i] as (typeof answers)[number];
      expect(kept.scores).toEqual(whole.scores);
      if (keeps === "none") expect(keptTokens).toBe(0);
      else expect(keptTokens).toBeGreaterThanOrEqual(4);
      // The meter is the request's own (as from position 0), so the worker's response body is the same bytes too.
      expect(kept.meter).toEqual(whole.meter);
      expect(fresh.keptTokens?.()).toBe(0);
    });
  },
);
