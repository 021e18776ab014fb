import type { ScoreQuestion } from "../../../schema/engine-protocol";

/** One labelled evaluation item (a line of gpu-worker/eval/data/*.jsonl). */
export interface EvalItem {
  id: string;
  split: "train" | "heldout";
  type: ScoreQuestion["type"];
  state: string;
  question: ScoreQuestion;
  /** pick → index of the correct option; rate → index of the correct level; check → boolean. */
  answer: number | boolean;
  /** Generator and where the truth comes from. */
  source: string;
  /** Real-text items: the readings the item was kept on, two where two independent readers agreed (docs/quality.md). */
  labels?: string[];
}

/** A state with the questions generated on it (items sharing a state are scored on one prefix). */
export interface Group {
  state: string;
  source: string;
  questions: { question: DistQuestion; answer: number | boolean }[];
}

type Dist<T> = T extends unknown ? Omit<T, "id"> : never;
export type DistQuestion = Dist<ScoreQuestion>;

/** Index of the correct outcome: check yes = 0, no = 1. */
export function answerIndex(item: Pick<EvalItem, "answer">): number {
  return typeof item.answer === "boolean" ? (item.answer ? 0 : 1) : item.answer;
}

export const pick = (instructions: string, labels: string[], criteria: string[] = []): DistQuestion => ({
  type: "pick",
  instructions,
  criteria,
  options: labels.map((label) => ({ label, description: null })),
});
export const rate = (instructions: string, levels: string[], criteria: string[] = []): DistQuestion => ({
  type: "rate",
  instructions,
  criteria,
  levels,
});
export const check = (instructions: string, criteria: string[] = []): DistQuestion => ({
  type: "check",
  instructions,
  criteria,
});
