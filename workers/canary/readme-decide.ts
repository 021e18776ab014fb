/**
 * The canary's request: the README's decide (scripts/stack/demo-decide.ts DEMO_DECIDE, checked equal by a unit
 * test), sent on each exact version a worker serves.
 */
export function readmeDecide(model: string): string {
  return JSON.stringify({
    model,
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
  });
}
