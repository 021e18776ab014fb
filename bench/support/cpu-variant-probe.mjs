// Runs inside a variant lab (bench/cpu-variants.ts), so `node-llama-cpp` resolves to a binding folder that holds
// one ggml CPU variant. Prints one JSON line: the variant loaded, prefill tokens/s per length and threads, and
// a fingerprint of the full next-token distribution after a fixed prompt (equal fingerprints = equal bytes).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

const [modelPath, lengthsArg, threadsArg, repeatsArg] = process.argv.slice(2);
const lengths = lengthsArg.split(",").map(Number);
const timedThreads = threadsArg.split(",").map(Number);
const threadCounts = [...new Set([1, 2, ...timedThreads])];
const repeats = Number(repeatsArg);

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });
const variant =
  /libggml-cpu-([a-z0-9._]+)\.so/.exec(readFileSync("/proc/self/maps", "utf8"))?.[1] ?? "unknown";
const text = "The customer wrote: my parcel arrived broken, I want my money back. ".repeat(200);
const all = model.tokenize(text);
const out = { variant, prefill: {}, fingerprint: {} };
for (const threads of threadCounts) {
  const ctx = await model.createContext({
    sequences: 1,
    contextSize: 2048,
    batchSize: 512,
    flashAttention: true,
    threads: { ideal: threads, min: threads },
  });
  const seq = ctx.getSequence();
  for (const n of timedThreads.includes(threads) ? lengths : []) {
    const best = [];
    for (let r = 0; r < repeats; r++) {
      await seq.clearHistory();
      const t = performance.now();
      await seq.evaluateWithoutGeneratingNewTokens(all.slice(0, n));
      best.push(performance.now() - t);
    }
    best.sort((a, b) => a - b);
    out.prefill[`${n}@t${threads}`] = Math.round(n / (best[Math.floor(best.length / 2)] / 1000));
  }
  await seq.clearHistory();
  const prompt = model.tokenize("Question: Does the customer ask for a refund? Answer:");
  const res = await seq.controlledEvaluate([
    ...prompt.slice(0, -1),
    [prompt.at(-1), { generateNext: { probabilities: true } }],
  ]);
  const probs = [...res.at(-1).next.probabilities.entries()].sort((a, b) => a[0] - b[0]);
  out.fingerprint[`t${threads}`] = createHash("sha256")
    .update(JSON.stringify(probs))
    .digest("hex")
    .slice(0, 16);
  await ctx.dispose();
}
console.log(JSON.stringify(out));
await model.dispose();
await llama.dispose();
