import type { ScoreQuestion } from "../../schema/engine-protocol";

/** A yes/no question as the engine receives it, without criteria. */
export const checkQuestion = (id: string, instructions: string): ScoreQuestion => ({
  id,
  type: "check",
  instructions,
  criteria: [],
});

/** A pick of `labels` (no descriptions) as the engine receives it, without criteria. */
export const pickQuestion = (id: string, instructions: string, labels: string[]): ScoreQuestion => ({
  id,
  type: "pick",
  instructions,
  criteria: [],
  options: labels.map((label) => ({ label, description: null })),
});
