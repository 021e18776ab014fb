import type { ScoreQuestion } from "../../schema/engine-protocol";
import { type Framing, outcomes, plainQa } from "./framings";

/**
 * Phrasings: several ways to ask one question after the same state prefix (`plainQa`'s `state\n\n`), so the
 * state is evaluated once and each extra phrasing costs only its question and label tokens. The engine may
 * average a type's phrasings (calibration field `phrasings`); which ones help is measured in docs/quality.md.
 */
const criteriaText = (q: ScoreQuestion) => (q.criteria.length ? `\nCriteria: ${q.criteria.join("; ")}` : "");

const PLAIN_LABELS = (q: ScoreQuestion): string[] =>
  q.type === "check" ? [" Yes", " No"] : outcomes(q).map((o) => ` ${o}`);

const qaPrompt = (q: ScoreQuestion) => `Question: ${q.instructions}${criteriaText(q)}\nAnswer:`;

/** Pick continuations with `text(label, description)` for every option that has a description. */
const described = (q: ScoreQuestion, text: (label: string, description: string) => string): string[] =>
  q.type === "pick"
    ? q.options.map((o) => ` ${o.description === null ? o.label : text(o.label, o.description)}`)
    : PLAIN_LABELS(q);

function phrasing(id: string, prompt: (q: ScoreQuestion) => string, labels = PLAIN_LABELS): Framing {
  return {
    id,
    mode: "label",
    statePrefix: plainQa.statePrefix,
    questionPrompt: (q) => [{ text: prompt(q) }],
    continuations: labels,
  };
}

export const PHRASINGS: Record<string, Framing> = Object.fromEntries(
  [
    // `plain-mix-2`'s own pick and check prompt.
    phrasing("ph-qa", qaPrompt),
    phrasing("ph-q-a", (q) => `Q: ${q.instructions}${criteriaText(q)}\nA:`),
    phrasing(
      "ph-yes-no",
      (q) =>
        `Question: ${q.instructions}${criteriaText(q)}\nAnswer (${q.type === "check" ? "yes or no" : outcomes(q).join(", ")}):`,
      (q) => (q.type === "check" ? [" yes", " no"] : outcomes(q).map((o) => ` ${o}`)),
    ),
    phrasing(
      "ph-answer-is",
      (q) => `Question: ${q.instructions}${criteriaText(q)}\nAnswer: The answer is`,
      (q) => (q.type === "check" ? [" yes", " no"] : outcomes(q).map((o) => ` ${o}`)),
    ),
    phrasing("ph-about-text", (q) => `About the text above: ${q.instructions}${criteriaText(q)}\nAnswer:`),
    // `ph-qa` reading each option's description instead of its label where it has one.
    phrasing("ph-qa-described", qaPrompt, (q) => described(q, (_, d) => d)),
    // `ph-qa` reading `label (description)` where an option has a description.
    phrasing("ph-qa-label-described", qaPrompt, (q) => described(q, (o, d) => `${o} (${d})`)),
  ].map((f) => [f.id, f]),
);

export function getPhrasing(id: string): Framing {
  const f = PHRASINGS[id];
  if (!f) throw new Error(`unknown phrasing ${id}`);
  return f;
}

/** Marks question `q` to be asked in phrasing `k` of a `multiplex` framing (ids stay unique per request). */
export const phrased = (q: ScoreQuestion, k: number): ScoreQuestion => ({ ...q, id: `${q.id}\u0000${k}` });

/**
 * One framing that asks each question in the phrasing its id carries (`phrased`): every phrasing shares
 * `plainQa`'s state prefix, so one request evaluates the state once for all of them.
 */
export function multiplex(phrasings: Framing[]): Framing {
  const of = (q: ScoreQuestion) => phrasings[Number(q.id.split("\u0000")[1] ?? 0)] as Framing;
  return {
    id: `multiplex(${phrasings.map((p) => p.id).join(",")})`,
    mode: "label",
    statePrefix: plainQa.statePrefix,
    questionPrompt: (q) => of(q).questionPrompt(q),
    continuations: (q) => of(q).continuations(q),
  };
}
