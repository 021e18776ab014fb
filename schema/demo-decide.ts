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
