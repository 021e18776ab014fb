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
  /** Set on a composite: the framing used per question type (all parts share one state prefix). */
  parts?: Partial<Record<ScoreQuestion["type"], string>>;
}

const criteriaText = (q: ScoreQuestion) => (q.criteria.length ? `\nCriteria: ${q.criteria.join("; ")}` : "");

export function outcomes(q: ScoreQuestion): string[] {
  if (q.type === "pick") return q.options.map((o) => o.label);
  if (q.type === "rate") return q.levels;
  return ["yes", "no"];
}

/** Answer codes A, B, C, … (the billed rendering's codes; a constant list). */
export const CODES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");
const codeOf = (i: number) => CODES[i] ?? `#${i + 1}`;

const special = (text: string): Piece => ({ text, special: true });
const plain = (text: string): Piece => ({ text });
const chatmlState = (state: string): Piece[] => [special("<|im_start|>"), plain(`user\n${state}\n\n`)];
const chatmlAssistant = (prefix: string): Piece[] => [
  special("<|im_end|>"),
  plain("\n"),
  special("<|im_start|>"),
  plain(`assistant\n${prefix}`),
];

/** Plain `Question: … Answer:` without the chat template, scoring the label text (83 % on factual picks, notes). */
export const plainQa: Framing = {
  id: "plain-qa",
  mode: "label",
  statePrefix: (state) => [{ text: `${state}\n\n` }],
  questionPrompt: (q) => [{ text: `Question: ${q.instructions}${criteriaText(q)}\nAnswer:` }],
  continuations: (q) => outcomes(q).map((o) => ` ${o}`),
};

/** Baseline: options listed with codes, the code's next-token probability read (at chance on svc-1, notes). */
export const codeLetters: Framing = {
  id: "code-letters",
  mode: "code",
  statePrefix: plainQa.statePrefix,
  questionPrompt: (q) => {
    const list = outcomes(q).map((o, i) => `${codeOf(i)}. ${o}`);
    return [plain(`Question: ${q.instructions}${criteriaText(q)}\n${list.join("\n")}\nAnswer:`)];
  },
  continuations: (q) => outcomes(q).map((_, i) => ` ${codeOf(i)}`),
};

/** Options listed in the prompt (no codes), then the label text scored. */
export const plainQaListed: Framing = {
  id: "plain-qa-listed",
  mode: "label",
  statePrefix: plainQa.statePrefix,
  questionPrompt: (q) => [
    plain(`Question: ${q.instructions}${criteriaText(q)}\nOptions: ${outcomes(q).join(", ")}\nAnswer:`),
  ],
  continuations: plainQa.continuations,
};

/** Answer prefix "The answer is". */
export const plainAnswerIs: Framing = {
  id: "plain-answer-is",
  mode: "label",
  statePrefix: plainQa.statePrefix,
  questionPrompt: (q) => [plain(`Question: ${q.instructions}${criteriaText(q)}\nAnswer: The answer is`)],
  continuations: plainQa.continuations,
};

/** ChatML template (`<|im_start|>` / `<|im_end|>` as special pieces); the assistant turn starts with the label. */
export const chatmlQa: Framing = {
  id: "chatml-qa",
  mode: "label",
  statePrefix: chatmlState,
  questionPrompt: (q) => [plain(`${q.instructions}${criteriaText(q)}`), ...chatmlAssistant("")],
  continuations: (q) => outcomes(q),
};

/** ChatML template with the answer prefix "The answer is". */
export const chatmlAnswerIs: Framing = {
  id: "chatml-answer-is",
  mode: "label",
  statePrefix: chatmlState,
  questionPrompt: (q) => [plain(`${q.instructions}${criteriaText(q)}`), ...chatmlAssistant("The answer is")],
  continuations: plainQa.continuations,
};

/** A check-specific variant of plain Q/A: the polarity words scored are `pos`/`neg` instead of yes/no. */
function checkWords(id: string, pos: string, neg: string, hint: string): Framing {
  return {
    ...plainQa,
    id,
    questionPrompt: (q) =>
      q.type === "check"
        ? [plain(`Question: ${q.instructions}${criteriaText(q)}\nAnswer (${hint}):`)]
        : plainQa.questionPrompt(q),
    continuations: (q) => (q.type === "check" ? [` ${pos}`, ` ${neg}`] : plainQa.continuations(q)),
  };
}

/** Check answered with capitalised `Yes` / `No` (the instruct model's own reply style); other types as `base`. */
function capitalYesNo(id: string, base: Framing): Framing {
  return {
    ...base,
    id,
    continuations: (q) =>
      q.type === "check"
        ? base.continuations(q).map((c) => c.replace("yes", "Yes").replace("no", "No"))
        : base.continuations(q),
  };
}

/** The answer format asked for in the prompt: "Answer yes or no." or "Answer with one of: a, b, c.". */
const answerHint = (q: ScoreQuestion) =>
  q.type === "check" ? "Answer yes or no." : `Answer with one of: ${outcomes(q).join(", ")}.`;

/** ChatML; the question ends with the answer format; the assistant turn starts with the label (check: Yes / No). */
export const chatmlHint: Framing = {
  id: "chatml-hint",
  mode: "label",
  statePrefix: chatmlState,
  questionPrompt: (q) => [
    plain(`${q.instructions}${criteriaText(q)}\n${answerHint(q)}`),
    ...chatmlAssistant(""),
  ],
  continuations: (q) => (q.type === "check" ? ["Yes", "No"] : outcomes(q)),
};

/** A pick's options as lines (`- label: description`), a rate's levels in order, a check's yes/no. */
function textHint(q: ScoreQuestion): string {
  if (q.type === "check") return "Answer yes or no.";
  if (q.type === "rate")
    return `Levels, lowest to highest: ${q.levels.join(", ")}.\nAnswer with one level exactly as written.`;
  const lines = q.options.map((o) => `- ${o.label}${o.description ? `: ${o.description}` : ""}`);
  return `Options:\n${lines.join("\n")}\nAnswer with one option's name exactly as written.`;
}

/**
 * For an instruct model that reads text (svc-1.5.0, Qwen2.5-Coder-1.5B-Instruct): ChatML with a system turn, the
 * state as the text under discussion, the question with what to answer (a pick's options with their
 * descriptions, a rate's levels, yes or no), and the assistant's reply scored: the label, the level, Yes / No.
 */
export const chatmlText: Framing = {
  id: "chatml-text",
  mode: "label",
  statePrefix: (state) => [
    special("<|im_start|>"),
    plain("system\nYou answer questions about a text. Reply with the answer only."),
    special("<|im_end|>"),
    plain("\n"),
    special("<|im_start|>"),
    plain(`user\nText:\n${state}\n\n`),
  ],
  questionPrompt: (q) => [
    plain(`Question: ${q.instructions}${criteriaText(q)}\n${textHint(q)}`),
    ...chatmlAssistant(""),
  ],
  continuations: (q) => (q.type === "check" ? ["Yes", "No"] : outcomes(q)),
};

export const plainYesNo = checkWords("plain-yes-no", "yes", "no", "yes or no");
export const plainQaYesNoCap = capitalYesNo("plain-qa-yes-no-cap", plainQa);
export const chatmlYesNoCap = capitalYesNo("chatml-yes-no-cap", chatmlQa);
export const plainTrueFalse = checkWords("plain-true-false", "true", "false", "true or false");
export const plainCorrectIncorrect = checkWords(
  "plain-correct-incorrect",
  "correct",
  "incorrect",
  "correct or incorrect",
);

/** Per question type a different framing; the parts must share `statePrefix` (evaluated once per request). */
export function composite(id: string, parts: Record<ScoreQuestion["type"], Framing>): Framing {
  const of = (q: ScoreQuestion) => parts[q.type];
  return {
    id,
    mode: "label",
    statePrefix: parts.pick.statePrefix,
    questionPrompt: (q) => of(q).questionPrompt(q),
    continuations: (q) => of(q).continuations(q),
    parts: { pick: parts.pick.id, rate: parts.rate.id, check: parts.check.id },
  };
}

/** Chosen by `npm run eval` (docs/quality.md): plain Q/A for pick, "The answer is" for rate, ` Yes`/` No` for check. */
export const plainMix = composite("plain-mix-1", {
  pick: plainQa,
  rate: plainAnswerIs,
  check: plainQaYesNoCap,
});

/** The same with the levels listed in the rate prompt (a finalist of `npm run eval` since the wave-2 set). */
export const plainMixListedRate = composite("plain-mix-2", {
  pick: plainQa,
  rate: plainQaListed,
  check: plainQaYesNoCap,
});

export const FRAMINGS: Record<string, Framing> = Object.fromEntries(
  [
    plainQa,
    codeLetters,
    plainQaListed,
    plainAnswerIs,
    chatmlQa,
    chatmlAnswerIs,
    plainTrueFalse,
    plainCorrectIncorrect,
    plainQaYesNoCap,
    chatmlYesNoCap,
    plainMix,
    plainMixListedRate,
    chatmlHint,
    plainYesNo,
    chatmlText,
  ].map((f) => [f.id, f]),
);

export function getFraming(id: string): Framing {
  const f = FRAMINGS[id];
  if (!f) throw new Error(`unknown framing ${id}`);
  return f;
}
