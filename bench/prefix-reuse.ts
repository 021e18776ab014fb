/**
 * `npm run bench:prefix-reuse`: what a sequence keeping the state-prefix head of its previous request saves
 * (gpu-worker/src/prefix-reuse.ts), on a real GPU worker process with its default lanes and threads. Per round a
 * new support thread of about 400 tokens is asked twice, a pick and then a check (as a caller asks follow-up
 * questions about one document); the first call of a round keeps only the framing's system turn, the second
 * all but the state's last ~64 tokens. The same worker with `SVC_REUSE_PREFIXES=0` is the baseline, same run.
 *   tsx bench/prefix-reuse.ts [rounds] [version]
 */
import { startWorker } from "../gpu-worker/src/spawn-worker";
import { ALIASES } from "../schema/models";

const ROUNDS = Number(process.argv[2] ?? 3);
const MODEL = process.argv[3] ?? (ALIASES["svc-1"] as string);
const SECRET = "bench-prefix-reuse-secret";
const thread = (round: number) =>
  Array.from(
    { length: 12 },
    (_, i) =>
      `Message ${i + 1} of ticket ${7700 + round}: the customer says order ${5200 + round * 20 + i} arrived ${i % 3 ? "late" : "damaged"} and asks what we can do about it.`,
  ).join("\n");
const QUESTIONS = [
  [
    {
      id: "topic",
      type: "pick",
      instructions: "What is the ticket about?",
      criteria: [],
      options: ["delivery", "billing", "login"].map((label) => ({ label, description: null })),
    },
  ],
  [{ id: "refund", type: "check", instructions: "Does the customer ask for a refund?", criteria: [] }],
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const kept = async (url: string) =>
  Number(
    (await (await fetch(`${url}/metrics`)).text()).match(/svc_engine_prefix_tokens_kept_total (\d+)/)?.[1],
  );

console.log(
  "| prefix reuse | first call on a state, median ms | same state again, median ms | prefix tokens kept |",
);
console.log("|---|---|---|---|");
for (const reuse of ["0", "1"]) {
  const w = await startWorker({
    GPU_SIGNING_SECRET: SECRET,
    SVC_MODEL_VERSION: MODEL,
    SVC_REUSE_PREFIXES: reuse,
  });
  try {
    const first: number[] = [];
    const again: number[] = [];
    const before = await kept(w.url);
    // Round 0 warms up (not counted).
    for (let round = 0; round <= ROUNDS; round++)
      for (const [k, questions] of QUESTIONS.entries()) {
        const body = JSON.stringify({
          request_id: `p-${reuse}-${round}-${k}`,
          model: MODEL,
          state: thread(round),
          questions,
        });
        const t = performance.now();
        const res = await w.score(body);
        if (res.status !== 200) throw new Error(`score: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        if (round > 0) (k === 0 ? first : again).push(performance.now() - t);
      }
    console.log(
      `| ${reuse === "1" ? "on" : "off"} | ${Math.round(median(first))} | ${Math.round(median(again))} | ${(await kept(w.url)) - before} |`,
    );
  } finally {
    await w.stop();
  }
}
