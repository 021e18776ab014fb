import { getLlama, LlamaLogLevel, type Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { logProbs, nextItem } from "../../../gpu-worker/src/label-walk";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { SVC1_LAYOUT } from "../../../schema/models";

// Issue 30: the scorer evaluates a state prefix as one decode per `batch` tokens, each under its lane's mutex on
// its own (so other requests of the lane, and cancellation, get a turn between chunks). node-llama-cpp split the
// whole prefix into the same batches itself before; this checks the numbers are bit-identical both ways.
describe("a state prefix in batch-sized evaluations = the whole prefix in one (bit-identical)", () => {
  it("over three batches of tokens: the next-token log-probabilities after it are the same bits", async () => {
    const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: defaultModelPath() });
    try {
      const text = Array.from(
        { length: 110 },
        (_, i) => `Line ${i}: parcel ${1000 + i} left the depot.`,
      ).join("\n");
      const tokens = model.tokenize(text, false) as Token[];
      expect(tokens.length).toBeGreaterThan(3 * SVC1_LAYOUT.batch);
      const last = tokens.at(-1) as Token;
      const prefix = tokens.slice(0, -1);
      const children = ["yes", "no", " the", "\n"].map((w) => ({
        token: model.tokenize(w, false)[0] as Token,
        children: [],
        ends: [],
      }));
      const read = async (chunked: boolean) => {
        const context = await model.createContext({
          sequences: 1,
          contextSize: 2048,
          batchSize: SVC1_LAYOUT.batch,
          flashAttention: SVC1_LAYOUT.flash_attention,
          threads: { ideal: 1, min: 1 },
        });
        try {
          const seq = context.getSequence();
          if (!chunked) await seq.evaluateWithoutGeneratingNewTokens(prefix);
          else
            for (let i = 0; i < prefix.length; i += SVC1_LAYOUT.batch)
              await seq.evaluateWithoutGeneratingNewTokens(prefix.slice(i, i + SVC1_LAYOUT.batch));
          const out = await seq.controlledEvaluate([nextItem(last, children)]);
          return [...logProbs(out[0])];
        } finally {
          await context.dispose();
        }
      };
      const whole = await read(false);
      const chunks = await read(true);
      expect(whole.length).toBeGreaterThan(0);
      expect(chunks).toEqual(whole);
    } finally {
      await model.dispose();
      await llama.dispose();
    }
  }, 120_000);
});
