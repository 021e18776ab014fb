import type { Context } from "hono";
import type { ValidatedDecide, ValidatedQuestion } from "../../schema/decide";
import type { EngineAnswer } from "../../schema/engine-protocol";
import type { AppEnv } from "../context/app-env";
import { testClock } from "../http/test-clock";
import type { QuestionTally } from "../stores/question-tallies";
import type { UsageEvent } from "../stores/usage";
import type { DecisionAnswer } from "./calibration";
import { questionDefinition } from "./question-fingerprint";

/** The tenth of [0, 1] a probability falls in (1 is in the last). */
export function tenthOf(p: number): number {
  return Math.min(9, Math.max(0, Math.floor(p * 10)));
}

const oneHot = (n: number, i: number) => Array.from({ length: n }, (_, k) => (k === i ? 1 : 0));

/** One answer of `q` as counts: the option or level it picked (a check's no / yes), a check's tenth of P(yes). */
export function tallyOf(q: ValidatedQuestion, a: EngineAnswer): QuestionTally {
  const base = { definition: questionDefinition(q), confidence: a.confidence, abstained: a.abstained };
  if (a.type === "check")
    return {
      ...base,
      type: "check",
      mix: oneHot(2, a.probability >= 0.5 ? 1 : 0),
      p_bins: oneHot(10, tenthOf(a.probability)),
      p: a.probability,
    };
  if (a.type === "pick") {
    const i = a.probabilities.findIndex(([label]) => label === a.choice);
    return { ...base, type: "pick", mix: oneHot(a.probabilities.length, i), p_bins: null, p: null };
  }
  let best = 0;
  a.probabilities.forEach((p, i) => {
    if (p > (a.probabilities[best] ?? 0)) best = i;
  });
  return { ...base, type: "rate", mix: oneHot(a.probabilities.length, best), p_bins: null, p: null };
}

/** Each question's tally, in request order (questions matched to answers by id). */
export function questionTallies(
  request: ValidatedDecide,
  answers: ReadonlyArray<DecisionAnswer>,
): QuestionTally[] {
  const byId = new Map(request.questions.map((q) => [q.id, q]));
  const out: QuestionTally[] = [];
  for (const a of answers) {
    const q = byId.get(a.id);
    if (q && q.type === a.answer.type) out.push(tallyOf(q, a.answer));
  }
  return out;
}

/**
 * Puts a decide's answers on its usage event, which writes them to the question aggregates in its one
 * statement (no round trip of its own); a replay adds nothing. On a test stack only, the event may be placed at
 * a simulated time (`clock.ts`).
 */
export function tallyQuestions(
  c: Context<AppEnv>,
  event: UsageEvent,
  request: ValidatedDecide,
  outcome: { decision: { answers: ReadonlyArray<DecisionAnswer> }; replayed: boolean },
): void {
  if (outcome.replayed) return;
  event.questions = questionTallies(request, outcome.decision.answers);
  event.at = testClock(c) ?? event.at;
}
