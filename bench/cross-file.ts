// npm run bench:cross-file — live decides on one weights file while batch work runs on another (issue 42's
// "live decides keep their pace while a batch runs"), appended to docs/benchmarks.md (## Live beside a batch on
// another weights file). One real worker serving svc-1.5.1 and svc-1.4.0 (two scorers, each 2 lanes × 2
// sequences, SVC_THREADS=1), over signed HTTP: the live short request on svc-1.5.1 idle (p50/p95 of sequential
// calls), then the same while BATCH_LOOPS loops send batch-priority requests on svc-1.4.0 without pause, once
// with SVC_SHARED_PRIORITY=1 (the default: batch decodes wait for the other file's live work) and once with 0
// (the baseline: each file alone), in the same run. Env: CROSS_LIVE_N (default 12), CROSS_WRITE=0 to skip
// writing the doc.
import { execSync } from "node:child_process";
import { cpus } from "node:os";
import { startWorker } from "../gpu-worker/src/spawn-worker";
import type { ScoreQuestion } from "../schema/engine-protocol";
import { loadAverage, percentile, prependToBenchmarks } from "./support/report";

const SECRET = "bench-cross-file-secret";
const LIVE_MODEL = "svc-1.5.1";
const BATCH_MODEL = "svc-1.4.0";
const LIVE_N = Number(process.env.CROSS_LIVE_N ?? 12);
const BATCH_LOOPS = 4;
const lines: string[] = [];
const log = (s: string) => {
  console.log(s);
  lines.push(s);
};
const la = () => loadAverage();
const pct = percentile;
const sec = (ms: number) => (ms / 1000).toFixed(2);

const questions: ScoreQuestion[] = [
  { id: "c", type: "check", instructions: "Was something returned?", criteria: [] },
];
let n = 0;
const body = (model: string, state: string, priority: "live" | "batch") =>
  JSON.stringify({ request_id: `x${++n}`, model, state, questions, priority });

async function run(shared: boolean) {
  const w = await startWorker(
    {
      GPU_SIGNING_SECRET: SECRET,
      SVC_MODEL_VERSION: `${LIVE_MODEL},${BATCH_MODEL}`,
      SVC_THREADS: "1",
      SVC_LANES: "2",
      SVC_SEQUENCES: "2",
      SVC_SHARED_PRIORITY: shared ? "1" : "0",
    },
    300_000,
  );
  try {
    const call = async (b: string) => {
      const t0 = performance.now();
      const res = await w.score(b);
      const text = await res.text();
      if (res.status !== 200) throw new Error(`answered ${res.status}: ${text}`);
      return { text, ms: performance.now() - t0 };
    };
    const live = () => call(body(LIVE_MODEL, "Order 1182: two lamps, one returned, refund pending.", "live"));
    await live(); // warm
    const idle: number[] = [];
    let reference = "";
    for (let i = 0; i < LIVE_N; i++) {
      const r = await live();
      reference ||= r.text;
      idle.push(r.ms);
    }
    let stop = false;
    let batchDone = 0;
    const loops = Array.from({ length: BATCH_LOOPS }, async (_, k) => {
      for (let i = 0; !stop; i++) {
        await call(body(BATCH_MODEL, `Ticket ${k}-${i}: the parcel came late but complete.`, "batch"));
        batchDone++;
      }
    });
    await new Promise((r) => setTimeout(r, 2_000)); // the batch loops under way
    const t0 = performance.now();
    const done0 = batchDone;
    const during: number[] = [];
    let identical = true;
    for (let i = 0; i < LIVE_N; i++) {
      const r = await live();
      identical &&= r.text === reference;
      during.push(r.ms);
    }
    const liveSeconds = (performance.now() - t0) / 1000;
    const batchWhileLive = batchDone - done0;
    stop = true;
    await Promise.all(loops);
    log(
      `| ${shared ? "1 (default)" : "0 (baseline)"} | ${sec(pct(idle, 0.5))} / ${sec(pct(idle, 0.95))} | ${sec(pct(during, 0.5))} / ${sec(pct(during, 0.95))} | ${(pct(during, 0.5) / pct(idle, 0.5)).toFixed(2)}× | ${batchWhileLive} in ${liveSeconds.toFixed(1)} s | ${identical ? "yes" : "**no**"} | ${la()} |`,
    );
  } finally {
    await w.stop();
  }
}

async function main() {
  const started = new Date().toISOString().slice(0, 16).replace("T", " ");
  const commit = execSync("git rev-parse --short HEAD").toString().trim();
  log(
    `### Run ${started} UTC (commit ${commit}, ${cpus().length} × ${cpus()[0]?.model.trim()}, one worker serving ${LIVE_MODEL} and ${BATCH_MODEL}, each 2 lanes × 2 sequences, SVC_THREADS=1)`,
  );
  log("");
  log(
    `Latencies in seconds at the worker (signed HTTP, no edge) of a live one-question check on ${LIVE_MODEL}, ${LIVE_N} sequential calls idle, then ${LIVE_N} while ${BATCH_LOOPS} loops sent batch-priority requests on ${BATCH_MODEL} without pause. Batch answers = batch requests finished while the live calls ran. Load average (1, 5, 15 min) at the end.`,
  );
  log("");
  log(
    "| SVC_SHARED_PRIORITY | live idle p50 / p95 | live beside batch p50 / p95 | p50 ratio | batch answers | live byte-identical | load average |",
  );
  log("| --- | --- | --- | --- | --- | --- | --- |");
  await run(true);
  await run(false);
  if (process.env.CROSS_WRITE === "0") return;
  const head = "## Live beside a batch on another weights file (`npm run bench:cross-file`, issue 42)";
  prependToBenchmarks(head, `${lines.join("\n")}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
