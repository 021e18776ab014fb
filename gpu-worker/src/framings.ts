import type { ScoreQuestion } from "../../schema/engine-protocol";

/**
 * A framing is what the model reads around the billed pieces: where the state sits, how a question is
 * phrased, what the answer prefix says, and which continuation strings are scored. Chosen by the evaluation
 * harness (docs/quality.md); the chosen one is named by the calibration artifact.
 */

/** A piece of prompt text. `special` pieces are scaffolding tokenized with special tokens ON (e.g. `<|im_start|>`);
 * everything else — and always the caller's content — is tokenized with special tokens OFF. */
export interface Piece {
  text: string;
  special?: true;
}

export interface Framing {
  id: string;
  /** `label`: score each outcome's text as the continuation. `code`: read the answer code's next-token probability. */
  mode: "label" | "code";
  /** Evaluated once per request. */
  statePrefix(state: string): Piece[];
  /** Appended after the state prefix for one question; ends right before the answer continuation. */
  questionPrompt(q: ScoreQuestion): Piece[];
  /** One continuation per outcome, in order: pick → options, rate → levels, check → [yes, no]. */
  continuations(q: ScoreQuestion): string[];
}

const criteriaText = (q: ScoreQuestion) => (q.criteria.length ? `\nCriteria: ${q.criteria.join("; ")}` : "");

export function outcomes(q: ScoreQuestion): string[] {
  if (q.type === "pick") return q.options.map((o) => o.label);
  if (q.type === "rate") return q.levels;
  return ["yes", "no"];
}

/** Plain `Question: … Answer:` without the chat template, scoring the label text (83 % on factual picks, notes). */
export const plainQa: Framing = {
  id: "plain-qa",
  mode: "label",
  statePrefix: (state) => [{ text: `${state}\n\n` }],
  questionPrompt: (q) => [{ text: `Question: ${q.instructions}${criteriaText(q)}\nAnswer:` }],
  continuations: (q) => outcomes(q).map((o) => ` ${o}`),
};

export const FRAMINGS: Record<string, Framing> = { [plainQa.id]: plainQa };

export function getFraming(id: string): Framing {
  const f = FRAMINGS[id];
  if (!f) throw new Error(`unknown framing ${id}`);
  return f;
}
