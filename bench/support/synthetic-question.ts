import type { ValidatedQuestion } from "../../schema/decide";

/** The calibration benches' question: a check when `k` is 2, else a pick of `k` options `o0`…. */
export const syntheticQuestion = (k: number): ValidatedQuestion =>
  k === 2
    ? { id: "q", type: "check", instructions: "?", criteria: null }
    : {
        id: "q",
        type: "pick",
        instructions: "?",
        criteria: null,
        options: Array.from({ length: k }, (_, i) => ({ label: `o${i}`, description: null })),
      };
