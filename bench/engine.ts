// npm run bench:engine — the engine's cost model on this machine, appended to docs/benchmarks.md (## Engine).
// 1 vs 32 questions on a ~2k-token state (and the one-sequence floor), engine prefill vs bare node-llama-cpp,
// threads 1 vs 2, requests/s and p50/p99 through the real worker at concurrency 1/4/8, co-batching cost, RSS.
import { execSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type { LlamaModel, Token } from "node-llama-cpp";
import { plainQa } from "../gpu-worker/src/framings";
import { defaultModelPath } from "../gpu-worker/src/model-check";
import { openScorer, type Scorer } from "../gpu-worker/src/scorer";
import { startWorker } from "../gpu-worker/src/spawn-worker";
import { tokenizePieces } from "../gpu-worker/src/tokenize";
import type { ScoreQuestion } from "../schema/engine-protocol";

const THREADS = Number(process.env.SVC_THREADS ?? 1);
const now = () => performance.now();
const secs = (ms: number) => (ms / 1000).toFixed(2);
const lines: string[] = [];
const log = (s: string) => {
  console.log(s);
  lines.push(s);
};

const NAMES = ["Ada", "Bruno", "Chen", "Dara", "Emil", "Farah", "Goran", "Hana"];
const ITEMS = ["lamps", "chairs", "kettles", "rugs", "desks", "mirrors"];
function longState(model: LlamaModel, target: number): string {
  let s = "";
  for (let i = 0; model.tokenize(s, false).length < target; i++)
    s += `Entry ${i}: ${NAMES[i % 8]} ordered ${(i * 7) % 13} ${ITEMS[i % 6]} on day ${i % 30}; status ${i % 3 ? "shipped" : "pending"}.\n`;
  return s;
}
const q32: ScoreQuestion[] = Array.from({ length: 32 }, (_, i) => ({
  id: `q${i}`,
  type: "check",
  instructions: `Does the log show that ${NAMES[i % 8]} ordered more than ${i % 9} ${ITEMS[i % 6]} during the first week of the month?`,
  criteria: [],
}));

// 32 check questions with little wording in common (only the framing's `Question:` head is shared).
const DIVERSE = [
  "Did Ada order any lamps?",
  "Were more than ten rugs shipped in total?",
  "Is any order still pending after day 20?",
  "Has Bruno received every chair he ordered?",
  "Do kettles appear more often than mirrors?",
  "Would a careful reader say the log is complete?",
  "Are all of Chen's orders shipped?",
  "Was a desk ordered on day 0?",
  "Can we tell who ordered the most items?",
  "Should Farah expect a delivery this week?",
  "Is Goran a frequent customer?",
  "Does Hana prefer mirrors over rugs?",
  "Were there days without orders?",
  "Did any customer order exactly seven items at once?",
  "Is the status field ever missing?",
  "Has the number of pending orders grown over time?",
  "Could Emil have ordered twelve kettles?",
  "Are entries listed in chronological order?",
  "Was every pending order later shipped?",
  "Do any two entries look like duplicates?",
  "Is Dara mentioned in the log?",
  "Would you call the shipping reliable?",
  "Did orders of chairs outnumber orders of desks?",
  "Are quantities ever zero?",
  "Is there evidence of a refund?",
  "Was the first entry pending?",
  "Does the log cover a whole month?",
  "Have lamps been shipped to Bruno?",
  "Is it likely that the warehouse ran out of rugs?",
  "Were eight different people ordering?",
  "Did someone order on day 29?",
  "Is the log written by a customer?",
];
const qDiverse: ScoreQuestion[] = DIVERSE.map((instructions, i) => ({
  id: `d${i}`,
  type: "check",
  instructions,
  criteria: [],
}));

async function bareEval(model: LlamaModel, tokens: Token[], threads: number): Promise<number> {
  const ctx = await model.createContext({
    sequences: 1,
    contextSize: 4096,
    batchSize: 512,
    threads: { ideal: threads, min: threads },
  });
  const seq = ctx.getSequence();
  const t = now();
  await seq.evaluateWithoutGeneratingNewTokens(tokens);
  const ms = now() - t;
  console.error(`  … bare ${tokens.length} tokens, ${threads} thread(s): ${secs(ms)} s`);
  await ctx.dispose();
  return ms;
}

async function timed<T>(fn: () => Promise<T>, label = ""): Promise<[T, number]> {
  const t = now();
  const r = await fn();
  if (label) console.error(`  … ${label}: ${secs(now() - t)} s`);
  return [r, now() - t];
}

async function costModel(scorer: Scorer) {
  const model = scorer.model;
  const state = longState(model, 2000);
  const prefix = tokenizePieces(model, plainQa.statePrefix(state));
  const prompts = q32.map((q) => tokenizePieces(model, plainQa.questionPrompt(q)));
  const qTokens = prompts.reduce((s, p) => s + p.length, 0);
  log(
    `- State: ${prefix.length} tokens; 32 check questions: ${qTokens} prompt tokens (≈${Math.round(qTokens / 32)} each), threads ${THREADS}.`,
  );

  await scorer.rawScores("warm", q32.slice(0, 1), plainQa);
  const [r1, t1] = await timed(() => scorer.rawScores(state, q32.slice(0, 1), plainQa), "1 question");
  const [r32, t32] = await timed(() => scorer.rawScores(state, q32, plainQa), "32 questions");
  const floor1 = await bareEval(model, [...prefix, ...(prompts[0] as Token[])], THREADS);
  const floor32 = await bareEval(model, [...prefix, ...prompts.flat()], THREADS);
  const bareState = await bareEval(model, prefix, THREADS);
  log(
    `- 1 question: ${secs(t1)} s (${r1.meter.tokens_evaluated} tokens evaluated); 32 questions: ${secs(t32)} s (${r32.meter.tokens_evaluated} evaluated, ${r32.meter.tokens_reused} reused). **Ratio 32/1 = ${(t32 / t1).toFixed(2)}×** (goal ≤ 1.5×).`,
  );
  log(
    `- One-sequence floor, same run (bare node-llama-cpp, state + questions appended in ONE sequence, questions see each other): 1 → ${secs(floor1)} s, 32 → ${secs(floor32)} s, **floor ratio ${(floor32 / floor1).toFixed(2)}×**.`,
  );
  const engineRate = r1.meter.tokens_evaluated / (t1 / 1000);
  const bareRate = (prefix.length + (prompts[0] as Token[]).length) / (floor1 / 1000);
  log(
    `- Prefill: engine ${engineRate.toFixed(0)} tok/s (1-question request end to end) vs bare ${bareRate.toFixed(0)} tok/s on the same tokens; **ratio ${(engineRate / bareRate).toFixed(2)}** (goal ≥ 0.9). Bare state alone: ${secs(bareState)} s = ${(prefix.length / (bareState / 1000)).toFixed(0)} tok/s.`,
  );
  const dPrompts = qDiverse.map((q) => tokenizePieces(model, plainQa.questionPrompt(q)));
  const [rd, td32] = await timed(() => scorer.rawScores(state, qDiverse, plainQa), "32 diverse questions");
  const [, td1] = await timed(
    () => scorer.rawScores(state, qDiverse.slice(0, 1), plainQa),
    "1 diverse question",
  );
  const fd1 = await bareEval(model, [...prefix, ...(dPrompts[0] as Token[])], THREADS);
  const fd32 = await bareEval(model, [...prefix, ...dPrompts.flat()], THREADS);
  log(
    `- Diverse questions (little shared wording, ${dPrompts.flat().length} prompt tokens): 1 → ${secs(td1)} s, 32 → ${secs(td32)} s (${rd.meter.tokens_evaluated} evaluated), **ratio ${(td32 / td1).toFixed(2)}×**; one-sequence floor ${(fd32 / fd1).toFixed(2)}×.`,
  );
  const other = THREADS === 1 ? 2 : 1;
  const tOther = await bareEval(model, prefix, other);
  log(
    `- Threads: ${prefix.length}-token prefill with ${THREADS} thread(s) ${secs(bareState)} s, with ${other} ${secs(tOther)} s.`,
  );
}

async function cobatching(scorer: Scorer, coScorer: Scorer) {
  const model = scorer.model;
  const states = Array.from({ length: 8 }, (_, i) => longState(model, 120 + i * 10));
  const qs = q32.slice(0, 4);
  for (const [name, s] of [
    ["isolated (engine default: one decode at a time)", scorer],
    ["co-batched (isolateRequests: false)", coScorer],
  ] as const) {
    const [, ms] = await timed(() => Promise.all(states.map((st) => s.rawScores(st, qs, plainQa))));
    log(
      `- 8 concurrent requests (~120–190-token states, 4 questions), ${name}: ${secs(ms)} s = ${(8 / (ms / 1000)).toFixed(2)} req/s.`,
    );
  }
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
}

function rssOf(pid: number | undefined): string {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? `${Math.round(Number(m[1]) / 1024)} MB` : "n/a";
  } catch {
    return "n/a";
  }
}

async function service() {
  const secret = "bench-secret";
  const w = await startWorker({
    GPU_SIGNING_SECRET: secret,
    SVC_THREADS: String(THREADS),
    SVC_SEQUENCES: "8",
    SVC_QUEUE_MAX: "64",
    SVC_CONTEXT_SIZE: "1024",
  });
  try {
    let n = 0;
    const req = () =>
      JSON.stringify({
        request_id: `b${++n}`,
        model: "svc-1.0.0",
        state: `Ticket ${n % 5}: the customer reports that the ${ITEMS[n % 6]} arrived damaged and asks for a refund or a replacement within the week.`,
        questions: q32.slice(0, 3),
      });
    for (const c of [1, 4, 8]) {
      const total = 16;
      const lat: number[] = [];
      let next = 0;
      const t = now();
      await Promise.all(
        Array.from({ length: c }, async () => {
          while (next++ < total) {
            const s = now();
            const res = await w.score(req());
            if (res.status !== 200)
              throw new Error(`bench request failed: ${res.status} ${await res.text()}`);
            await res.text();
            lat.push(now() - s);
          }
        }),
      );
      const wall = now() - t;
      log(
        `- Worker over HTTP, concurrency ${c}: ${(total / (wall / 1000)).toFixed(2)} req/s, p50 ${pct(lat, 50).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms (${total} requests, 3 questions, ~35-token state).`,
      );
    }
    log(`- Worker resident memory (8 sequences × 1,024 tokens): ${rssOf(w.child.pid)}.`);
  } finally {
    await w.stop();
  }
}

async function main() {
  const started = now();
  const cpu = cpus()[0]?.model ?? "unknown";
  log(`### Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`);
  log(
    `- Machine: nproc ${execSync("nproc").toString().trim()}, ${cpu}, node ${process.version}, node-llama-cpp 3.22.1 (CPU), SmolLM2-135M-Instruct Q4_1. Load average at start ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        " / ",
      )} on 2 cores: the machine is shared with other jobs, so compare ratios within one run, not absolute times across runs.`,
  );
  const scorer = await openScorer({
    modelPath: defaultModelPath(),
    threads: THREADS,
    sequences: 8,
    contextSize: 4096,
  });
  await costModel(scorer);
  const co = await openScorer({
    modelPath: defaultModelPath(),
    threads: THREADS,
    sequences: 8,
    contextSize: 1024,
    isolateRequests: false,
  });
  await cobatching(scorer, co);
  await co.close();
  log(
    `- Bench process resident memory (two scorers, 8 × 4,096 + 8 × 1,024 token contexts): ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB.`,
  );
  await scorer.close();
  await service();
  log(`- Whole bench: ${secs(now() - started)} s.`);

  const path = "docs/benchmarks.md";
  const doc = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n";
  const run = `${lines.join("\n")}\n`;
  const at = doc.indexOf("\n## Engine\n");
  let out: string;
  if (at < 0)
    out = `${doc.trimEnd()}\n\n## Engine\n\nMeasured by \`npm run bench:engine\` (bench/engine.ts).\n\n${run}`;
  else {
    const nextSection = doc.indexOf("\n## ", at + 1);
    const end = nextSection < 0 ? doc.length : nextSection;
    out = `${doc.slice(0, end).trimEnd()}\n\n${run}${doc.slice(end)}`;
  }
  writeFileSync(path, out);
  console.log(`appended to ${path}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
