/**
 * `npx tsx scripts/prefix-reuse-bits.ts [exact version]`: checks `reusableTokens` (gpu-worker/src/prefix-reuse.ts)
 * on the real model: for held/new prefix pairs (chosen at the rules' edges, plus random ones up to 700 tokens),
 * a sequence that held the old prefix (and a question after it) keeps what the rule allows and evaluates the
 * rest; the next-token log-probabilities after the new prefix must be the bits a fresh sequence gives. Prints
 * one line per pair and how many differ (docs/decisions.md, "Prefix reuse"). Default version: svc-1.5.0's file.
 */
import { getLlama, LlamaLogLevel, type Token } from "node-llama-cpp";
import { logProbs, nextItem } from "../gpu-worker/src/label-walk";
import { scorerGroups } from "../gpu-worker/src/model-files";
import { reusableTokens } from "../gpu-worker/src/prefix-reuse";
import { SVC1_LAYOUT } from "../schema/models";

const [g] = scorerGroups([process.argv[2] ?? "svc-1.5.0"]);
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: g!.path });
const text = (k: number) =>
  Array.from({ length: 120 }, (_, i) => `Line ${i}: parcel ${k * 1000 + i} left the depot ${k}.`).join("\n");
const A = model.tokenize(text(1), false) as Token[];
const B = model.tokenize(text(2), false) as Token[];
const children = ["yes", "no", " the", "\n", "Yes", "No"].map((w) => ({
  token: model.tokenize(w, false)[0] as Token,
  children: [],
  ends: [],
}));
const context = await model.createContext({
  sequences: 1,
  contextSize: 2048,
  batchSize: 512,
  flashAttention: SVC1_LAYOUT.flash_attention,
  threads: { ideal: 1, min: 1 },
});
const seq = context.getSequence();
const evalFrom = async (prefix: Token[], from: number) => {
  let i = from;
  while (i < prefix.length) {
    const end = Math.min(prefix.length, (Math.floor(i / 512) + 1) * 512);
    await seq.evaluateWithoutGeneratingNewTokens(prefix.slice(i, end));
    i = end;
  }
};
const readAfter = async (last: Token) =>
  JSON.stringify([...logProbs((await seq.controlledEvaluate([nextItem(last, children)]))[0])]);
let bad = 0,
  n = 0,
  reusedTotal = 0;
// old prefix: first `common` tokens shared with new prefix, then A's tokens; lengths vary.
const cases: [number, number, number][] = [];
for (const [lo, ln, common] of [
  [57, 57, 57],
  [57, 57, 24],
  [57, 60, 23],
  [200, 200, 30],
  [200, 180, 199],
  [40, 200, 30],
  [200, 40, 30],
  [130, 70, 69],
  [700, 700, 600],
  [700, 600, 530],
  [600, 700, 515],
  [520, 530, 515],
  [90, 300, 88],
  [300, 90, 88],
  [63, 64, 62],
  [64, 63, 62],
  [100, 100, 100],
] as const)
  cases.push([lo, ln, common]);
for (let r = 0; r < 12; r++) {
  const lo = 1 + Math.floor(Math.random() * 700),
    ln = 1 + Math.floor(Math.random() * 700);
  cases.push([lo, ln, Math.floor(Math.random() * Math.min(lo, ln))]);
}
for (const [lo, ln, common] of cases) {
  const newP = [...B.slice(0, common), ...A.slice(common, ln)].slice(0, ln);
  const oldP = [...B.slice(0, common), ...model.tokenize(text(3), false).slice(common, lo)].slice(
    0,
    lo,
  ) as Token[];
  const last = B[ln] as Token;
  await seq.clearHistory();
  await evalFrom(newP, 0);
  const fresh = await readAfter(last);
  await seq.clearHistory();
  await evalFrom(oldP, 0);
  await seq.evaluateWithoutGeneratingNewTokens(A.slice(600, 607)); // a question branch after it
  const keep = reusableTokens(oldP, newP, 512);
  if (keep === 0) await seq.clearHistory();
  else await seq.eraseContextTokenRanges([{ start: keep, end: seq.nextTokenIndex }]);
  await evalFrom(newP, keep);
  const reused = await readAfter(last);
  n++;
  reusedTotal += keep;
  if (reused !== fresh) bad++;
  console.log(`old ${lo} new ${ln} common ${common}: keep ${keep} ${reused === fresh ? "SAME" : "DIFF"}`);
}
console.log(`${bad} of ${n} differ; reused ${reusedTotal} tokens`);
await context.dispose();
await model.dispose();
await llama.dispose();
