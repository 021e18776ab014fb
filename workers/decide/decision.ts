import type { EngineAnswer } from "../../schema/engine-protocol";
import type { OriginalResult } from "../stores/idempotency";
import type { DecisionAnswer } from "./calibration";

/** Everything a Decision (spec: Decision, 200 of POST /v1/decide) is made of. */
export interface DecisionParts {
  id: string;
  created: number;
  model: string;
  served_by: "gpu" | "fallback";
  calibration: string;
  /** One per question, in request order; `calibration` on an answer the account's calibration computed. */
  answers: ReadonlyArray<DecisionAnswer>;
  usage: OriginalResult["usage"];
}

const str = (s: string) => JSON.stringify(s);
const num = (n: number) => JSON.stringify(n);

function member(key: string, valueJson: string): string {
  return `${str(key)}:${valueJson}`;
}

/** An answer's JSON; an account's calibration adds its id after the spec's fields (issue 44). */
function answerJson(a: EngineAnswer, calibration?: string): string {
  const json = engineAnswerJson(a);
  return calibration === undefined
    ? json
    : `${json.slice(0, -1)},${member("calibration", str(calibration))}}`;
}

function engineAnswerJson(a: EngineAnswer): string {
  if (a.type === "pick") {
    // Written by hand: a JS object would move integer-like labels ("1", "10") ahead of the others.
    const probs = a.probabilities.map(([label, p]) => member(label, num(p))).join(",");
    return `{${[
      member("type", str("pick")),
      member("choice", str(a.choice)),
      member("probabilities", `{${probs}}`),
      member("confidence", num(a.confidence)),
      member("abstained", String(a.abstained)),
    ].join(",")}}`;
  }
  if (a.type === "rate") {
    return `{${[
      member("type", str("rate")),
      member("rating", num(a.rating)),
      member("levels", `[${a.levels.map(str).join(",")}]`),
      member("probabilities", `[${a.probabilities.map(num).join(",")}]`),
      member("confidence", num(a.confidence)),
      member("abstained", String(a.abstained)),
    ].join(",")}}`;
  }
  return `{${[
    member("type", str("check")),
    member("probability", num(a.probability)),
    member("confidence", num(a.confidence)),
    member("abstained", String(a.abstained)),
  ].join(",")}}`;
}

/** The Decision's JSON text, every object in the spec's field order and answers in request order. */
export function decisionJson(d: DecisionParts): string {
  const u = d.usage;
  const usage = [
    member("input_tokens", num(u.input_tokens)),
    member("state_tokens", num(u.state_tokens)),
    member("question_tokens", num(u.question_tokens)),
    member("charge_micro_cents", num(u.charge_micro_cents)),
    member("unit_price_micro_cents", num(u.unit_price_micro_cents)),
    member("tier", str(u.tier)),
  ].join(",");
  return `{${[
    member("id", str(d.id)),
    member("object", str("decision")),
    member("created", num(d.created)),
    member("model", str(d.model)),
    member("served_by", str(d.served_by)),
    member("calibration", str(d.calibration)),
    member(
      "answers",
      `{${d.answers.map((a) => member(a.id, answerJson(a.answer, a.calibration))).join(",")}}`,
    ),
    member("usage", `{${usage}}`),
  ].join(",")}}`;
}
