import { DEMO_DECIDE } from "../../schema/demo-decide";
import type { ScoreQuestion } from "../../schema/engine-protocol";

export { DEMO_DECIDE };

/** The demo's topic pick as the engine receives it. */
export const DEMO_TOPIC_QUESTION: Extract<ScoreQuestion, { type: "pick" }> = {
  id: "topic",
  type: "pick",
  instructions: DEMO_DECIDE.questions.topic.instructions,
  criteria: [],
  options: Object.entries(DEMO_DECIDE.questions.topic.options).map(([label, description]) => ({
    label,
    description,
  })),
};

/** The demo's refund check as the engine receives it. */
export const DEMO_REFUND_QUESTION: Extract<ScoreQuestion, { type: "check" }> = {
  id: "refund",
  type: "check",
  instructions: DEMO_DECIDE.questions.refund.instructions,
  criteria: [],
};

/** Support messages the topic pick is checked on, each with the option that names its topic. */
export const DEMO_TOPIC_CASES: [state: string, label: string][] = [
  [DEMO_DECIDE.state, "refund"],
  ["The customer wrote: thank you so much, the team was wonderful and the delivery was fast!", "praise"],
  ["The customer wrote: I cannot log in, the password reset link never arrives.", "login"],
];
