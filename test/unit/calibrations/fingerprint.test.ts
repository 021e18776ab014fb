import { describe, expect, it } from "vitest";
import type { ValidatedQuestion } from "../../../schema/decide";
import { questionDefinition, questionFingerprint } from "../../../workers/decide/question-fingerprint";

const pick: ValidatedQuestion = {
  id: "topic",
  type: "pick",
  instructions: "What is {{ticket.subject}} about?",
  criteria: ["Read the whole ticket."],
  min_confidence: 0.5,
  options: [
    { label: "10", description: null },
    { label: "2", description: "a billing error" },
  ],
};

const fp = (q: ValidatedQuestion) => questionFingerprint(q);

describe("the fingerprint (issue 44: the question as the caller wrote it)", () => {
  it("is the definition as written: templates unrendered, options in order (integer-like labels too), no id, no min_confidence", () => {
    expect(questionDefinition(pick)).toBe(
      '{"type":"pick","instructions":"What is {{ticket.subject}} about?","criteria":["Read the whole ticket."],"options":{"10":null,"2":"a billing error"}}',
    );
  });

  it("does not change with the question id or min_confidence", async () => {
    const base = await fp(pick);
    expect(await fp({ ...pick, id: "other" })).toBe(base);
    expect(await fp({ ...pick, min_confidence: 0.9 })).toBe(base);
    const { min_confidence: _, ...without } = pick;
    expect(await fp(without as ValidatedQuestion)).toBe(base);
  });

  it.each<[string, ValidatedQuestion]>([
    ["instructions", { ...pick, instructions: "What is it about?" }],
    ["criteria as a string instead of a list", { ...pick, criteria: "Read the whole ticket." }],
    ["criteria absent", { ...pick, criteria: null }],
    [
      "option order",
      {
        ...pick,
        options: [
          ...(pick as { options: { label: string; description: string | null }[] }).options,
        ].reverse(),
      },
    ],
    [
      "a description",
      {
        ...pick,
        options: [
          { label: "10", description: "ten" },
          { label: "2", description: "a billing error" },
        ],
      },
    ],
    [
      "a label's case",
      {
        ...pick,
        options: [
          { label: "10", description: null },
          { label: "2", description: "A billing error" },
        ],
      },
    ],
    [
      "the type (same text as a check)",
      { id: "topic", type: "check", instructions: pick.instructions, criteria: pick.criteria },
    ],
  ])("changes with %s", async (_what, q) => {
    expect(await fp(q)).not.toBe(await fp(pick));
  });

  it("a rate's levels in order are part of it", async () => {
    const rate: ValidatedQuestion = {
      id: "r",
      type: "rate",
      instructions: "How urgent?",
      criteria: null,
      levels: ["low", "high"],
    };
    expect(questionDefinition(rate)).toBe(
      '{"type":"rate","instructions":"How urgent?","levels":["low","high"]}',
    );
    expect(await fp({ ...rate, levels: ["high", "low"] })).not.toBe(await fp(rate));
  });
});
