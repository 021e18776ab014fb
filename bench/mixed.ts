// npm run bench:mixed — one long request must not stop the worker (issue 30), appended to docs/benchmarks.md
// (## Mixed load). For each configuration (before: 1 lane × 2 sequences, the old single context; after: the
// default 2 lanes × 2 sequences), through the real worker over signed HTTP: short-request latency idle
// (p50/p95 of sequential calls), then one long request with short ones started every SHORT_EVERY_MS while it runs
// (p50/p95 of those), the long one's time, and whether every short answer was byte-identical to its idle answer.
// Env: MIXED_VERSIONS (default svc-1.4.0; add svc-1.5.1 for the 1.5B model), MIXED_LONG_ENTRIES (state size),
// MIXED_CONFIGS (e.g. "1x2,2x2": lanes x sequences), MIXED_SHORT_EVERY_MS (default 1500; keep it above the
// short request's idle time, or the shorts alone saturate the worker), MIXED_WRITE=0 to skip writing the doc.
import { execSync } from "node:child_process";
import { cpus } from "node:os";
import { LOAD_HEADER } from "../gpu-worker/src/server";
import { startWorker } from "../gpu-worker/src/spawn-worker";
import type { ScoreQuestion } from "../schema/engine-protocol";
import { loadAverage, percentile, prependToBenchmarks } from "./support/report";

const SECRET = "bench-mixed-secret";
const VERSIONS = (process.env.MIXED_VERSIONS ?? "svc-1.4.0").split(",");
const CONFIGS = (process.env.MIXED_CONFIGS ?? "1x2,2x2").split(",").map((c) => c.split("x").map(Number));
const ENTRIES = Number(process.env.MIXED_LONG_ENTRIES ?? 330);
const IDLE_N = 8;
const SHORT_EVERY_MS = Number(process.env.MIXED_SHORT_EVERY_MS ?? 1500);
const lines: string[] = [];
const log = (s: string) => {
  console.log(s);
  lines.push(s);
};
const la = () => loadAverage();
const pct = percentile;
const sec = (ms: number) => (ms / 1000).toFixed(2);

const check = (id: string, instructions: string): ScoreQuestion => ({
  id,
  type: "check",
  instructions,
  criteria: [],
});
const shortQs: ScoreQuestion[] = [
  check("c", "Was something returned?"),
  {
    id: "p",
    type: "pick",
    instructions: "What happened?",
    criteria: [],
    options: [
      { label: "refund", description: null },
      { label: "new order", description: null },
    ],
  },
];
const NAMES = ["Ada", "Bruno", "Chen", "Dara", "Emil", "Farah", "Goran", "Hana"];
const longState = Array.from(
  { length: ENTRIES },
  (_, i) =>
    `Entry ${i}: ${NAMES[i % 8]} wrote again about parcel ${1000 + i}, status ${i % 3 ? "shipped" : "pending"}.`,
).join("\n");

let n = 0;
const body = (model: string, state: string, questions: ScoreQuestion[]) =>
  JSON.stringify({ request_id: `m${++n}`, model, state, questions });

async function run(lanes: number, sequences: number, version: string) {
  const w = await startWorker(
    {
      GPU_SIGNING_SECRET: SECRET,
      SVC_MODEL_VERSION: version,
      SVC_THREADS: "1",
      SVC_LANES: String(lanes),
      SVC_SEQUENCES: String(sequences),
    },
    300_000,
  );
  try {
    const call = async (b: string) => {
      const t0 = performance.now();
      const res = await w.score(b);
      const text = await res.text();
      return { status: res.status, text, ms: performance.now() - t0, load: res.headers.get(LOAD_HEADER) };
    };
    const short = () => body(version, "Order 1182: two lamps, one returned, refund pending.", shortQs);
    const idle: number[] = [];
    let reference = "";
    for (let i = 0; i < IDLE_N; i++) {
      const r = await call(short());
      if (r.status !== 200) throw new Error(`idle short answered ${r.status}: ${r.text}`);
      reference ||= r.text;
      idle.push(r.ms);
    }
    const laIdle = la();
    const longCall = call(body(version, longState, [check("d", "Was every parcel delivered?")]));
    let done = false;
    longCall.finally(() => {
      done = true;
    });
    const during: Promise<Awaited<ReturnType<typeof call>>>[] = [];
    while (!done) {
      during.push(call(short()));
      await new Promise((r) => setTimeout(r, SHORT_EVERY_MS));
    }
    const long = await longCall;
    const shorts = await Promise.all(during);
    const laDuring = la();
    const ok = shorts.filter((s) => s.status === 200);
    const identical = ok.every((s) => s.text === reference);
    const longTokens = long.status === 200 ? JSON.parse(long.text).meter.tokens_evaluated : NaN;
    const speed = long.load ? JSON.parse(long.load).tokens_per_second : NaN;
    const ms = ok.map((s) => s.ms);
    log(
      `| ${version} | ${lanes} × ${sequences} | ${sec(pct(idle, 0.5))} / ${sec(pct(idle, 0.95))} | ${ms.length ? `${sec(pct(ms, 0.5))} / ${sec(pct(ms, 0.95))}` : "–"} | ${ok.length}/${shorts.length} | ${long.status} in ${sec(long.ms)} (${longTokens} tokens) | ${identical ? "yes" : "**no**"} | ${speed} | ${laIdle} → ${laDuring} |`,
    );
  } finally {
    await w.stop();
  }
}

async function main() {
  const started = new Date().toISOString().slice(0, 16).replace("T", " ");
  const commit = execSync("git rev-parse --short HEAD").toString().trim();
  log(
    `### Run ${started} UTC (commit ${commit}, ${cpus().length} × ${cpus()[0]?.model.trim()}, SVC_THREADS=1, long state ${ENTRIES} entries)`,
  );
  log("");
  log(
    `Latencies in seconds at the worker (signed HTTP, no edge). Short = 2 questions on a one-line state; during = one started every ${SHORT_EVERY_MS / 1000} s while the long one ran. Speed = tokens evaluated per second of decode time the worker reported after the long one. Load average (1, 5, 15 min) after the idle calls → after the long one.`,
  );
  log("");
  log(
    "| version | lanes × sequences | short idle p50 / p95 | short during long p50 / p95 | shorts 200 | long | shorts byte-identical | speed tok/s | load average |",
  );
  log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const v of VERSIONS)
    for (const [lanes, seqs] of CONFIGS) await run(lanes as number, seqs as number, v);
  if (process.env.MIXED_WRITE === "0") return;
  const head = "## Mixed load: one long request and short ones (`npm run bench:mixed`, issue 30)";
  prependToBenchmarks(head, `${lines.join("\n")}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
