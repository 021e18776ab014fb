import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCalibration } from "../../../gpu-worker/src/calibration";
import { catalogCalibrationPath } from "../../../gpu-worker/src/calibration-pin";
import { Engine } from "../../../gpu-worker/src/engine";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { ALIASES } from "../../../schema/models";
import { DEMO_TOPIC_CASES, DEMO_TOPIC_QUESTION } from "../../../scripts/stack/demo-decide";
import { openVersionScorer } from "../../support/version-scorer";

// Everyday questions a new user asks first, on the real model with the calibration the alias `svc-1` serves.
// Written before any tuning of framing or calibration (issue #13); the cases are not part of the fit.
// Since issue 29 `svc-1` reads text with Qwen2.5-Coder-1.5B-Instruct; since svc-1.5.1 its check has a yes bias
// fitted on the whole real-text train split (docs/quality.md, "svc-1.5.1"), which brought the thank-you note from
// P(yes) 0.28 to 0.02. KNOWN GAPS: the listing without a price reads as mentioning one, a thank-you newsletter
// rates "medium" urgent, and (since the yes bias) the prize e-mail is spam at only 0.28 (raw 0.61: the model
// barely sees it; svc-1.5.0 said 0.56). Cases the version
// `svc-1` resolves to gets wrong run as `it.fails`: they keep the expectation as written and turn red the day a
// model or method meets it, so the list is updated on purpose rather than silently. Which cases are gaps is
// measured on the pinned numerics class (docs/decisions.md): moving to it turned case 1 right and case 8 wrong.
const version = ALIASES["svc-1"] as string;
let engine: Engine;
beforeAll(async () => {
  const scorer = await openVersionScorer(version, { contextSize: 512 });
  engine = new Engine(scorer, loadCalibration(catalogCalibrationPath(version)), version);
});
afterAll(async () => {
  await engine?.scorer.close();
});

const check = (instructions: string): ScoreQuestion => ({
  id: "q",
  type: "check",
  instructions,
  criteria: [],
});
const choose = (type: "pick" | "rate", instructions: string, labels: string[]): ScoreQuestion =>
  type === "pick"
    ? {
        id: "q",
        type,
        instructions,
        criteria: [],
        options: labels.map((label) => ({ label, description: null })),
      }
    : { id: "q", type, instructions, criteria: [], levels: labels };

/** Probability of every outcome (check: [yes, no]) for one question on `state`. */
async function probabilities(state: string, q: ScoreQuestion): Promise<number[]> {
  const r = await engine.score({ request_id: "everyday", model: version, state, questions: [q] });
  const a = r.answers[0]?.answer;
  if (a?.type === "check") return [a.probability, 1 - a.probability];
  if (a?.type === "pick") return a.probabilities.map(([, p]) => p);
  if (a?.type === "rate") return a.probabilities;
  throw new Error(`no answer for ${q.instructions}`);
}

const REFUND = check("Does the customer ask for a refund?");

describe("the README example answers sensibly", () => {
  it("refund asked: P(yes) ≥ 0.8 on the broken parcel", async () => {
    const [yes] = await probabilities(
      "The customer wrote: my parcel arrived broken, I want my money back.",
      REFUND,
    );
    expect(yes).toBeGreaterThanOrEqual(0.8);
  });
  it("no refund asked: P(yes) ≤ 0.2 on the thank-you note", async () => {
    const [yes] = await probabilities(
      "The customer wrote: the parcel arrived on time and everything works great, thank you!",
      REFUND,
    );
    expect(yes).toBeLessThanOrEqual(0.2);
  });
});

/** [state, question, index of the right outcome, known gap on the alias's version]; check: 0 = yes, 1 = no. */
const CASES: [string, ScoreQuestion, number, "gap"?][] = [
  [
    "Hi, I was charged twice for my subscription this month. Please fix it.",
    check("Is this message about billing?"),
    0,
  ],
  ["Hi, how do I change the language of the app to French?", check("Is this message about billing?"), 1],
  [
    "CONGRATULATIONS! You have won a $1000 gift card. Click here to claim your prize now!",
    check("Is this message spam?"),
    0,
    "gap",
  ],
  ["Hi Anna, the meeting is moved to 3pm tomorrow. See you there, Tom", check("Is this message spam?"), 1],
  ["Great product, works perfectly, I love it!", check("Is the review positive?"), 0],
  ["Terrible quality, it broke after one day. Do not buy.", check("Is the review positive?"), 1],
  ["Used bike for sale, 120 euros, pick up in Berlin.", check("Does the listing mention a price?"), 0],
  [
    "Used bike for sale, good condition, pick up in Berlin.",
    check("Does the listing mention a price?"),
    1,
    "gap",
  ],
  [
    "Our server is down and no customer can log in!",
    choose("rate", "How urgent is this message?", ["low", "medium", "high"]),
    2,
  ],
  [
    "Thanks for the newsletter, nice read.",
    choose("rate", "How urgent is this message?", ["low", "medium", "high"]),
    0,
    "gap",
  ],
  [
    "Bonjour, je voudrais annuler ma commande.",
    choose("pick", "Which language is the message written in?", ["English", "French", "German", "Spanish"]),
    1,
  ],
  [
    "The food was cold and the waiter was rude.",
    choose("pick", "What is the sentiment of the review?", ["positive", "negative", "neutral"]),
    1,
  ],
  // Written 2026-11-25 before svc-1.5.0's calibration was fitted (issue 29).
  ["Please cancel my subscription, effective today.", check("Does the customer want to cancel?"), 0],
  ["I love my subscription, keep the boxes coming!", check("Does the customer want to cancel?"), 1],
  [
    "The courier left the package at the wrong address again.",
    choose("pick", "What went wrong?", ["delivery", "payment", "product quality"]),
    0,
  ],
  [
    "Absolutely fantastic service, thank you all!",
    choose("rate", "How satisfied is the customer?", ["unsatisfied", "neutral", "satisfied"]),
    2,
  ],
];

describe("everyday cases: the right outcome gets the highest probability", () => {
  for (const [i, [state, q, want, gap]] of CASES.entries())
    (gap ? it.fails : it)(`case ${i}: ${q.instructions}${gap ? " (known gap)" : ""}`, async () => {
      const p = await probabilities(state, q);
      expect(p.indexOf(Math.max(...p))).toBe(want);
    });
});

// The topic pick `npm start` and the README offer a newcomer (scripts/stack/demo-decide.ts). Unlike the cases
// above it was chosen after measuring, as a question the default model does answer; this keeps the demo honest:
// when a version stops answering it, the demo changes with it.
describe("the demo's topic pick names the topic of each support message", () => {
  for (const [state, want] of DEMO_TOPIC_CASES)
    it(`${want}: ${state}`, async () => {
      const p = await probabilities(state, DEMO_TOPIC_QUESTION);
      expect(DEMO_TOPIC_QUESTION.options[p.indexOf(Math.max(...p))]?.label).toBe(want);
    });
});
