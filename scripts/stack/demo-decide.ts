import type { ScoreQuestion } from "../../schema/engine-protocol";

/**
 * The decide that `npm start` and the README offer a newcomer: one call, two questions about a support message.
 * The default version (svc-1.5.1) answers both (test/integration/gpu-worker/everyday-cases.test.ts keeps the topic
 * pick and the refund pair so); the older 135M versions answer the pick but not the yes/no question.
 */
export const DEMO_DECIDE = {
  model: "svc-1",
  state: "The customer wrote: my parcel arrived broken, I want my money back.",
  questions: {
    topic: {
      type: "pick",
      instructions: "What is the message about?",
      options: {
        refund: "a refund for a damaged order",
        billing: "a billing error",
        login: "trouble signing in",
        praise: "praise for the service",
      },
    },
    refund: { type: "check", instructions: "Does the customer ask for a refund?" },
  },
} as const;

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
