/**
 * `npm run bench:readme-decide`: the README's two-question decide (`scripts/stack/demo-decide.ts`) scored by a
 * real GPU worker process on CPU, per exact version, for each thread count given (default 1,2), p50 and p95 of
 * N calls (default 9) after one warm-up, at the worker's default context size; the old default version is the
 * baseline in the same run. The calls
 * alternate the README's state with another short message, so no call finds its own state kept from the call
 * before (prefix-reuse keeps the framing's common head only). With `--reuse` each setting also runs with
 * `SVC_REUSE_PREFIXES=0` (every prefix from position 0), the baseline of that feature; with `--spread` with
 * `SVC_SPREAD_QUESTIONS=0` (every request on one lane), the baseline of spreading questions over an idle lane.
 *   tsx bench/readme-decide.ts [N] [threads,…] [versions,…] [--reuse] [--spread]
 */
import { startWorker } from "../gpu-worker/src/spawn-worker";
import { ALIASES } from "../schema/models";
import { DEMO_DECIDE, DEMO_REFUND_QUESTION, DEMO_TOPIC_QUESTION } from "../scripts/stack/demo-decide";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const N = Number(args[0] ?? 9);
const THREADS = (args[1] ?? "1,2").split(",").map(Number);
const VERSIONS = (args[2] ?? `${ALIASES["svc-1"]},svc-1.4.0`).split(",");
const REUSE = process.argv.includes("--reuse") ? ["1", "0"] : ["1"];
const SPREAD = process.argv.includes("--spread") ? ["1", "0"] : ["1"];
const STATES = [
  DEMO_DECIDE.state,
  "The customer wrote: the parcel arrived on time and everything works great, thank you!",
];
const SECRET = "bench-readme-decide-secret";
const questions = [DEMO_TOPIC_QUESTION, DEMO_REFUND_QUESTION];
const pct = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] as number;

const onOff = (v: string) => (v === "1" ? "on" : "off");
console.log(
  "| version | threads | prefix reuse | questions spread | p50 ms | p95 ms | refund P(yes) on the README state |",
);
console.log("|---|---|---|---|---|---|---|");
for (const threads of THREADS)
  for (const [reuse, spread] of REUSE.flatMap((r) => SPREAD.map((sp) => [r, sp] as const))) {
    const w = await startWorker({
      GPU_SIGNING_SECRET: SECRET,
      SVC_THREADS: String(threads),
      SVC_MODEL_VERSION: [...new Set(VERSIONS)].join(","),
      SVC_REUSE_PREFIXES: reuse,
      SVC_SPREAD_QUESTIONS: spread,
    });
    try {
      for (const model of VERSIONS) {
        const times: number[] = [];
        let yes = 0;
        for (let i = 0; i <= N; i++) {
          const body = JSON.stringify({
            request_id: `b-${threads}-${model}-${i}`,
            model,
            state: STATES[i % 2],
            questions,
          });
          const t = performance.now();
          const res = await w.score(body);
          const out = (await res.json()) as { answers: { answer: { probability?: number } }[] };
          if (i > 0) times.push(performance.now() - t);
          if (i % 2 === 0) yes = out.answers[1]?.answer.probability ?? Number.NaN;
        }
        console.log(
          `| ${model} | ${threads} | ${onOff(reuse)} | ${onOff(spread)} | ${Math.round(pct(times, 0.5))} | ${Math.round(pct(times, 0.95))} | ${yes} |`,
        );
      }
    } finally {
      await w.stop();
    }
  }
