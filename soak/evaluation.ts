// The issue-31 measurement: a 1,000-item evaluation on the real local stack (PGlite + Neon bridge, redis +
// Upstash bridge, the Worker in workerd, the real GPU worker on CPU) with the GPU worker killed (SIGKILL) and the
// edge restarted (its Durable Objects' memory and alarms gone) mid-run. Checks: every item scored exactly once,
// the stored metrics equal a recomputation from the stored answers, usage equals the sum of the items' tokens.
// Run: npx tsx soak/evaluation.ts [items]   (prints a Markdown report for docs/reliability.md)
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningWorker, startWorker } from "../gpu-worker/src/spawn-worker";
import type { ScoreResponse } from "../schema/engine-protocol";
import { type EdgeWorker, startEdgeWorker } from "../scripts/stack/edge-worker";
import { withNodeClient } from "../scripts/stack/neon-node";
import { seedAccount } from "../scripts/stack/seed";
import { startServices } from "../scripts/stack/services";
import { type Expected, evaluationMetrics } from "../workers/evaluations/metrics";

const N = Number(process.argv[2] ?? 1000);
const SECRET = "evaluation-soak-gpu-secret";
const t0 = Date.now();
const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const log: string[] = [];
const note = (s: string) => {
  log.push(`- ${at()}: ${s}`);
  console.error(`[${at()}] ${s}`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const services = await startServices({ databaseUrl: "", upstashUrl: "" });
const db = <T>(fn: Parameters<typeof withNodeClient<T>>[2]) =>
  withNodeClient(services.env.DATABASE_URL, { wsProxy: services.env.NEON_WS_PROXY }, fn);
let gpu: RunningWorker = await startWorker({ GPU_SIGNING_SECRET: SECRET, SVC_THREADS: "1" });
const edgeFor = (gpuUrl: string) =>
  startEdgeWorker({
    bindings: { ...services.env, ENVIRONMENT: "local", GPU_SIGNING_SECRET: SECRET, GPU_POOL_URLS: gpuUrl },
    logFile: join(tmpdir(), "svc-soak-evaluation-edge.jsonl"),
  });
let edge: EdgeWorker = await edgeFor(gpu.url);
note(`stack up (GPU worker ${gpu.url}, edge ${edge.url})`);

try {
  const account = await db((q) => seedAccount(q, { keys: [{ mode: "test" }] }));
  const key = account.keys[0]!;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${edge.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  const topics = ["bill", "ship", "ret"] as const;
  const texts = {
    bill: "Charged twice for order",
    ship: "Courier never came, order",
    ret: "Sent back the shoes, order",
  };
  // Short enough that 1,000 items fit the 256 KiB body limit.
  const items = Array.from({ length: N }, (_, i) => {
    const topic = topics[i % 3]!;
    const refund = i % 2 === 0;
    return {
      state: `${texts[topic]} ${1000 + i}.${refund ? " Refund me." : ""}`,
      questions: {
        refund: { type: "check", instructions: "Refund?" },
        topic: {
          type: "pick",
          instructions: "Topic?",
          options: { bill: null, ship: null, ret: null },
        },
      },
      expected: { refund, topic },
    };
  });
  note(`body ${(JSON.stringify({ name: "reliability", items }).length / 1024).toFixed(0)} KiB`);
  const created = await api("POST", "/v1/evaluations", { name: "reliability", items });
  if (!created.id) throw new Error(JSON.stringify(created));
  const id = created.id as string;
  note(`created ${id}: ${N} items, pinned to ${created.model}`);
  const progress = async () => (await api("GET", `/v1/evaluations/${id}`)) as Record<string, any>;

  const waitDone = async (target: number, limitMs: number) => {
    const end = Date.now() + limitMs;
    for (;;) {
      const e = await progress();
      if (e.progress.done >= target || (e.status !== "running" && e.status !== "queued") || Date.now() > end)
        return e;
      await sleep(500);
    }
  };
  let e = await waitDone(Math.floor(N * 0.3), 20 * 60_000);
  note(`${e.progress.done}/${N} scored; GPU worker killed (SIGKILL)`);
  gpu.child.kill("SIGKILL");
  await sleep(5_000);
  e = await progress();
  note(`5 s without a GPU: status ${e.status}, ${e.progress.done}/${N} (the run waits, nothing counted)`);
  await edge.stop();
  note("edge stopped (Durable Objects' memory and alarms gone)");
  gpu = await startWorker({ GPU_SIGNING_SECRET: SECRET, SVC_THREADS: "1" });
  edge = await edgeFor(gpu.url);
  note(
    `GPU worker and edge back (${gpu.url}, ${edge.url}); the next read of the stalled run kicks its runner`,
  );
  e = await waitDone(N, 30 * 60_000);
  note(`status ${e.status}, ${e.progress.done}/${N}`);

  const check = await db(async (q) => {
    const one = async (sql: string, params: unknown[] = []) =>
      (await q(sql, params)).rows[0] as Record<string, any>;
    const ev = await one("SELECT * FROM evaluations WHERE id = $1", [id]);
    const it = await one(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'done')::int AS done,
              count(DISTINCT attempt)::int AS attempts, sum(input_tokens)::int AS tokens,
              count(*) FILTER (WHERE NOT usage_recorded)::int AS unrecorded
         FROM evaluation_items WHERE evaluation_id = $1`,
      [id],
    );
    const usage = await one(
      `SELECT count(*)::int AS n, coalesce(sum(u.input_tokens), 0)::int AS tokens,
              count(*) FILTER (WHERE i.attempt IS NULL)::int AS strays
         FROM usage_events u LEFT JOIN evaluation_items i ON i.evaluation_id = $2 AND i.attempt = u.request_id
        WHERE u.key_id = $1`,
      [key.id, id],
    );
    const rows = (
      await q("SELECT expected, answers FROM evaluation_items WHERE evaluation_id = $1 ORDER BY idx", [id])
    ).rows;
    const recomputed = evaluationMetrics(
      rows.map((r) => ({
        answers: (JSON.parse(String(r.answers)) as ScoreResponse).answers,
        expected: JSON.parse(String(r.expected)) as Record<string, Expected>,
      })),
    );
    return { ev, it, usage, recomputed };
  });
  const stored = JSON.parse(String(check.ev.metrics)) as Record<string, unknown>;
  const metricsEqual = JSON.stringify(stored) === JSON.stringify(check.recomputed);
  const checks: Array<[string, boolean, string]> = [
    [
      "run done, every item counted",
      check.ev.status === "done" && check.ev.done === N && check.it.done === N,
      `status ${check.ev.status}, done ${check.ev.done}, items done ${check.it.done} of ${check.it.n}`,
    ],
    [
      "each item scored exactly once (one counted attempt each)",
      check.it.attempts === N,
      `${check.it.attempts} distinct counted attempts`,
    ],
    [
      "usage = one test event per item",
      check.usage.n === N && check.usage.strays === 0 && check.it.unrecorded === 0,
      `${check.usage.n} events, ${check.usage.strays} not an item's attempt, ${check.it.unrecorded} items unrecorded`,
    ],
    [
      "usage tokens = sum of the items' tokens = the run's tokens",
      check.usage.tokens === check.it.tokens && Number(check.ev.input_tokens) === check.it.tokens,
      `${check.usage.tokens} / ${check.it.tokens} / ${check.ev.input_tokens}`,
    ],
    [
      "metrics = recomputation from the stored answers",
      metricsEqual,
      metricsEqual ? "identical JSON" : "DIFFERENT",
    ],
  ];
  const m = stored as Record<string, any>;
  const out = [
    `### Evaluation of ${N} items, GPU worker killed and edge restarted mid-run (${new Date().toISOString().slice(0, 10)})`,
    "",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), shared; GPU worker on CPU, 1 thread, ${created.model}; 2 items at a time. Wall time ${at()}.`,
    "",
    ...log,
    "",
    "| check | result | observed |",
    "| --- | --- | --- |",
    ...checks.map(([c, ok, obs]) => `| ${c} | ${ok ? "pass" : "FAIL"} | ${obs} |`),
    "",
    `Metrics (for the record): refund accuracy ${m.refund?.accuracy}, AUC ${m.refund?.auc}, ECE-15 ${m.refund?.ece15}; topic accuracy ${m.topic?.accuracy}, ECE-15 ${m.topic?.ece15}.`,
  ];
  console.log(out.join("\n"));
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
} finally {
  await edge.stop().catch(() => {});
  await gpu.stop().catch(() => {});
  await services.stop();
}
