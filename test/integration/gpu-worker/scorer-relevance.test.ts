import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { PHRASINGS } from "../../../gpu-worker/src/phrasings";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";
import { tokenizePieces } from "../../../gpu-worker/src/tokenize";
import type { ScoreQuestion } from "../../../schema/engine-protocol";

// Real model on CPU: the relevance reads (a question prompt's own log-probability after the state) that an
// artifact with `relevance_weight` asks for. They come after every answer, so the answers never change.
const framing = PHRASINGS["ph-qa"] as NonNullable<(typeof PHRASINGS)[string]>;
let scorer: Scorer;
beforeAll(async () => {
  scorer = await openScorer({ modelPath: defaultModelPath(), threads: 1, sequences: 1, contextSize: 1024 });
});
afterAll(async () => {
  await scorer?.close();
});

const check = (id: string, instructions: string): ScoreQuestion => ({
  id,
  type: "check",
  instructions,
  criteria: [],
});
const REFUND = check("refund", "Does the customer ask for a refund?");
const SPAM = check("spam", "Is this message spam?");
const STATE = "The customer wrote: my parcel arrived broken, I want my money back.";

describe("prompt log-probabilities read after the answers", () => {
  it("the answers are the same with and without the reads; only the asked questions get one", async () => {
    const plain = await scorer.score(scorer.prepare(STATE, [REFUND, SPAM], framing));
    const read = await scorer.score(scorer.prepare(STATE, [REFUND, SPAM], framing, [true, false]));
    expect(read.scores).toEqual(plain.scores);
    expect(plain.promptLogProbs).toBeUndefined();
    const tokens = tokenizePieces(scorer.model, framing.questionPrompt(REFUND)).length;
    expect(read.promptLogProbs?.[0]).toEqual({ lp: expect.any(Number), tokens });
    expect(read.promptLogProbs?.[0]?.lp).toBeLessThan(0);
    expect(read.promptLogProbs?.[1]).toBeUndefined();
  });

  it("a question's read is the same alone and among others, and again on a second call", async () => {
    const alone = await scorer.score(scorer.prepare(STATE, [SPAM], framing, [true]));
    const both = await scorer.score(scorer.prepare(STATE, [REFUND, SPAM], framing, [true, true]));
    const again = await scorer.score(scorer.prepare(STATE, [SPAM], framing, [true]));
    expect(both.promptLogProbs?.[1]).toEqual(alone.promptLogProbs?.[0]);
    expect(again.promptLogProbs).toEqual(alone.promptLogProbs);
  });

  it("the state moves the question's own probability: the refund question is likelier after the refund text", async () => {
    const lp = async (state: string) =>
      (await scorer.score(scorer.prepare(state, [REFUND], framing, [true]))).promptLogProbs?.[0]
        ?.lp as number;
    expect(await lp(STATE)).toBeGreaterThan(await lp("N/A"));
  });
});
