// Where the time of one cache-warm decide goes at concurrency 1, step by step, against a bare Hono handler in
// the same run. Timed in the harness, not in production code: a bench-only entry module wraps the Worker's
// outgoing fetch (Upstash bridge, engine stand-in, Neon HTTP) and the LEDGER binding, and times the Worker's
// pure steps (validation, rendering, tokenization, signing, the Decision) on the same body inside workerd.
//   npx tsx bench/breakdown.ts [requests] [rounds] [worker-root]   (worker-root: a checkout whose workers/ is measured)
//   BENCH_IO_ONLY=1: only the timed I/O per step (no floors, no pure steps): the entry then imports nothing but the
//   Worker and its ledger class, so it also bundles on an older tree (issue 53's before/after against 31de2a7).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DECIDE_BODY } from "./support/bare-worker";
import { runBench, startEdgeBench } from "./support/edge-bench";
import { fundedAccountHeaders } from "./support/funded-account";

const N = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 3);
const ROOT = resolve(process.argv[4] ?? ".");
const IO_ONLY = process.env.BENCH_IO_ONLY === "1";

/** BENCH_IO_ONLY: the pure steps' and floors' imports become unused stubs (they may not exist on an older tree). */
const ioOnly = (entry: string) =>
  IO_ONLY ? entry.replace(/^import \{ (\w+) \} from "[^"]+";$/gm, "const $1: any = undefined;") : entry;

/** The Worker's entry with its I/O timed per request; `/__bench/steps` returns and resets the spans. */
function timingEntry(): string {
  const path = join(ROOT, "workers", ".bench-breakdown-entry.ts");
  writeFileSync(
    path,
    ioOnly(`import worker from "./index";
export { AccountLedger } from "./ledger/account-ledger";
import { validateDecideRequest } from "./decide/validate";
import { resolveModel } from "./decide/resolve-model";
import { checkReferences } from "./decide/references";
import { checkUniqueness } from "./decide/uniqueness";
import { checkTokenLimits } from "./decide/token-limits";
import { renderForEngine } from "../schema/render";
import { signRequest } from "../schema/signing";
import { hashApiKey } from "../schema/api-key";
import { parseJsonBody } from "./http/parse-json";
import { requestFingerprint } from "../schema/canonical-json";
import { AdmissionStore } from "./stores/admission";
import { redisAccess } from "./stores/redis";

type Span = { kind: string; ms: number; background: boolean };
let spans: Span[] = [];
let totals: number[] = [];
let answered = true;
let redisCalls = 0;
let env0: any;

function kindOf(url: string): string {
  if (url.startsWith(env0.UPSTASH_REDIS_REST_URL)) return "redis";
  if (env0.GPU_POOL_URLS && url.startsWith(env0.GPU_POOL_URLS)) return "engine";
  if (env0.NEON_HTTP_ENDPOINT && url.startsWith(env0.NEON_HTTP_ENDPOINT.replace(/\\/sql$/, ""))) return "postgres";
  return "other";
}

let release: (() => void) | null = null;
let released = Promise.resolve();
const realFetch = globalThis.fetch;
globalThis.fetch = async function timedFetch(input: any, init?: any) {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  // Diagnostic (BENCH_DEFER_BACKGROUND=1): Postgres writes started during a decide after its key lookup are
  // not awaited by it (usage event, journal flush); hold them until the answer has left.
  if (env0.BENCH_DEFER_BACKGROUND === "1" && !answered && redisCalls > 0 && kindOf(url) === "postgres") {
    await released;
    await new Promise((r) => setTimeout(r, 1));
  }
  const background = answered;
  const t0 = performance.now();
  const res = await realFetch(input, init);
  const body = await res.arrayBuffer();
  let kind = kindOf(url);
  // At concurrency 1 the awaited Redis calls of a decide are, in order, ENTER (record + limits) and LEAVE.
  if (kind === "redis" && !background) kind = ++redisCalls === 1 ? "redis: enter (record + limits)" : redisCalls === 2 ? "redis: leave (completion + slot)" : "redis: other";
  if (kind === "postgres") kind = background ? "postgres (background)" : "postgres: started before the answer (usage event in waitUntil; key lookup on a cache miss)";
  spans.push({ kind, ms: performance.now() - t0, background });
  return new Response(body, res);
} as typeof fetch;

function timedLedger(ns: any) {
  return {
    idFromName: (n: string) => ns.idFromName(n),
    get(id: unknown) {
      const stub = ns.get(id);
      return new Proxy(stub, {
        get(t: any, m: string) {
          return async (...a: unknown[]) => {
            const background = answered;
            const t0 = performance.now();
            try { return await t[m](...a); } finally { spans.push({ kind: "ledger." + m, ms: performance.now() - t0, background }); }
          };
        },
      });
    },
  };
}

async function cpuSteps(body: string, iterations: number) {
  const time = async (f: () => unknown) => {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) await f();
    return (performance.now() - t0) / iterations;
  };
  const secret = "svc_live_" + "a".repeat(40);
  const bytes = new TextEncoder().encode(body);
  const parsed = parseJsonBody(bytes);
  const req = validateDecideRequest(parsed);
  const model = resolveModel(req.model, req.fallback);
  const rendered = renderForEngine(req, model.version.id, "req_01JDBENCH0000000000000000");
  return {
    "auth: SHA-256 of the key": await time(() => hashApiKey(secret)),
    "strict JSON parse": await time(() => parseJsonBody(bytes)),
    "validate (422 precedence)": await time(() => validateDecideRequest(parsed)),
    "model, references, uniqueness": await time(() => { resolveModel(req.model, req.fallback); checkReferences(req); checkUniqueness(req); }),
    "render + tokenize (token limits)": await time(() => checkTokenLimits(req, model.version.limits)),
    "render for the engine": await time(() => renderForEngine(req, model.version.id, "req_01JDBENCH0000000000000000")),
    "idempotency fingerprint": await time(() => requestFingerprint(parsed)),
    "sign the engine call (HMAC)": await time(() => signRequest("bench-gpu-secret", { method: "POST", origin: "http://127.0.0.1:9000", path: "/v1/score", body: JSON.stringify(rendered) })),
  };
}

let wrapped: any;
let floorCalls = 0;
const scoreBody = JSON.stringify({ request_id: "req_floor", model: "svc-1.1.0", questions: [{ id: "refund", type: "check", text: "Does the customer ask for a refund?" }], state: "The parcel arrived broken." });
export default {
  ...worker,
  async fetch(req: Request, env: any, ctx: any) {
    env0 = env;
    const path = new URL(req.url).pathname;
    if (path === "/__bench/steps") {
      const out = { spans, totals };
      spans = [];
      totals = [];
      return Response.json(out);
    }
    if (path === "/__bench/cpu") return Response.json(await cpuSteps(await req.text(), 200).catch((e) => ({ error: String(e?.stack ?? e) })));
    if (path === "/__bench/floor") {
      const what = new URL(req.url).searchParams.get("what");
      const t0 = performance.now();
      if (what === "redis") await (await realFetch(env.UPSTASH_REDIS_REST_URL + "/ping", { headers: { authorization: "Bearer " + env.UPSTASH_REDIS_REST_TOKEN } })).arrayBuffer();
      if (what === "engine") await (await realFetch(env.GPU_POOL_URLS + "/readyz")).arrayBuffer();
      if (what === "ledger") await env.LEDGER.get(env.LEDGER.idFromName("bench-floor")).balance();
      const n = floorCalls++;
      if (what === "enter") {
        const store = new AdmissionStore(redisAccess(env));
        const input = { keyId: "bench-floor", accountId: "bench-floor", mode: "live" as const, key: { rpm: 1e9, tpm: 1e12 }, account: { rpm: 1e9, tpm: 1e12 }, concurrency: 1e6, dailyQuota: 0, day: "2026-11-23", tokens: 30, requestId: "req_floor_" + n, leaseMs: 60_000, now: Date.now() };
        const record = { key_id: "bench-floor", key_hash: "h" + n, fingerprint: "f", status: "running" as const, owner: input.requestId, created_at: input.now, updated_at: input.now };
        const t1 = performance.now();
        await store.enter(input, record);
        const t2 = performance.now();
        await store.leave(input, record, { record: { next: { ...record, status: "completed" } }, refundTokens: 0, testQuota: false, undoRequest: false });
        return Response.json({ ms: t2 - t1, leave: performance.now() - t2 });
      }
      if (what === "debit") await env.LEDGER.get(env.LEDGER.idFromName("bench-floor")).debit({ request_id: "req_floor_" + n, account_id: "bench-floor", tokens: 30, amount_micro_cents: 0, test: true });
      if (what === "score") await (await realFetch(env.GPU_POOL_URLS + "/v1/score", { method: "POST", headers: { "content-type": "application/json" }, body: scoreBody })).arrayBuffer();
      return Response.json({ ms: performance.now() - t0 });
    }
    wrapped ??= { ...env, LEDGER: timedLedger(env.LEDGER) };
    answered = false;
    redisCalls = 0;
    released = new Promise<void>((r) => { release = r; });
    const t0 = performance.now();
    const res = await worker.fetch(req, wrapped, ctx);
    totals.push(performance.now() - t0);
    answered = true;
    release?.();
    return res;
  },
};
`),
  );
  return path;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : 0;
};
const f1 = (x: number) => x.toFixed(2);

async function timeClient(send: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const res = await send();
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

interface Span {
  kind: string;
  ms: number;
  background: boolean;
}

async function main(): Promise<void> {
  const bench = await startEdgeBench();
  const { services, bare } = bench;
  const edge = await bench.edge({
    entry: timingEntry(),
    bindings: { BENCH_DEFER_BACKGROUND: process.env.BENCH_DEFER_BACKGROUND ?? "0" },
  });
  const steps = async () =>
    (await (await fetch(`${edge.url}/__bench/steps`)).json()) as { spans: Span[]; totals: number[] };
  try {
    const headers = await fundedAccountHeaders(services.env, edge.url);
    let n = 0;
    const decide = (keyed: boolean) => () =>
      fetch(`${edge.url}/v1/decide`, {
        method: "POST",
        headers: keyed ? { ...headers, "idempotency-key": `bd-${Date.now()}-${n++}` } : headers,
        body: DECIDE_BODY,
      });
    const bareSend = () => fetch(`${bare.url}/v1/decide`, { method: "POST", headers, body: DECIDE_BODY });
    for (let i = 0; i < 30; i++) {
      await (await decide(true)()).arrayBuffer();
      await (await bareSend()).arrayBuffer();
    }
    const floors: Record<string, number[]> = {
      redis: [],
      enter: [],
      leave: [],
      engine: [],
      score: [],
      ledger: [],
      debit: [],
    };
    for (let round = 1; round <= ROUNDS; round++) {
      await steps();
      const bareMs = await timeClient(bareSend);
      const clientMs = await timeClient(decide(true));
      const { spans, totals } = await steps();
      for (const what of Object.keys(floors).filter((w) => w !== "leave" && !IO_ONLY))
        for (let i = 0; i < 50; i++) {
          const out = (await (await fetch(`${edge.url}/__bench/floor?what=${what}`)).json()) as {
            ms: number;
            leave?: number;
          };
          floors[what]!.push(out.ms);
          if (out.leave !== undefined) floors.leave!.push(out.leave);
        }
      const path = spans.filter((s) => !s.background);
      const byKind = new Map<string, number[]>();
      for (const s of path) byKind.set(s.kind, [...(byKind.get(s.kind) ?? []), s.ms]);
      const perRequest = (kind: string) => (byKind.get(kind) ?? []).reduce((a, b) => a + b, 0) / N;
      const awaited = [...byKind.keys()].filter((k) => !k.startsWith("postgres"));
      const io = awaited.reduce((a, k) => a + perRequest(k), 0);
      const inWorker = totals.reduce((a, b) => a + b, 0) / N;
      const client = clientMs.reduce((a, b) => a + b, 0) / N;
      const bareMean = bareMs.reduce((a, b) => a + b, 0) / N;
      const bg = new Map<string, number>();
      for (const s of spans.filter((s) => s.background)) bg.set(s.kind, (bg.get(s.kind) ?? 0) + 1);
      console.log(
        `\nround ${round}/${ROUNDS}: ${N} sequential decides (fresh idempotency key, warm key cache) and ${N} bare calls`,
      );
      console.log(
        `bare p50 ${f1(median(bareMs))} ms, decide p50 ${f1(median(clientMs))} ms (overhead ${f1(median(clientMs) - median(bareMs))} ms, ×${(median(clientMs) / median(bareMs)).toFixed(1)})`,
      );
      console.log("| step (means per request) | ms | share of decide | × bare |");
      console.log("| --- | --- | --- | --- |");
      const row = (label: string, ms: number) =>
        console.log(
          `| ${label} | ${f1(ms)} | ${((100 * ms) / client).toFixed(0)} % | ${(ms / bareMean).toFixed(1)} |`,
        );
      row("client → workerd → client (what the bare handler costs)", client - inWorker);
      for (const k of [...byKind.keys()].sort())
        row(`${k} (${(byKind.get(k)!.length / N).toFixed(2)} per request)`, perRequest(k));
      row("Worker: everything but the awaited calls above (CPU, Hono, waitUntil scheduling)", inWorker - io);
      row("total decide (client)", client);
      console.log(
        `background after the answer: ${[...bg.entries()].map(([k, c]) => `${k} ×${c}`).join(", ") || "none"}`,
      );
    }
    if (IO_ONLY) return;
    const FLOOR: Record<string, string> = {
      redis: "PING through the Upstash bridge",
      enter: "the ENTER script alone (record + limits)",
      leave: "the LEAVE script alone (completion + slot)",
      engine: "GET /readyz on the engine stand-in",
      score: "POST /v1/score on the engine stand-in (no signing, no response check)",
      ledger: "ledger.balance() on a Durable Object",
      debit: "ledger.debit() alone (a test debit)",
    };
    console.log(
      `\nthe same calls alone, from inside workerd between rounds, mean of ${50 * ROUNDS} (the clock ticks in 1 ms):`,
    );
    for (const [what, xs] of Object.entries(floors))
      console.log(`- ${what}: ${f1(xs.reduce((a, b) => a + b, 0) / xs.length)} ms (${FLOOR[what]})`);
    const cpu = (await (
      await fetch(`${edge.url}/__bench/cpu`, { method: "POST", body: DECIDE_BODY })
    ).json()) as Record<string, number>;
    console.log("\npure steps inside workerd on the same body (mean of 200):");
    console.log("| step | ms |");
    console.log("| --- | --- |");
    if ("error" in cpu) throw new Error(`the pure steps failed inside workerd: ${cpu.error}`);
    for (const [k, v] of Object.entries(cpu)) console.log(`| ${k} | ${v.toFixed(3)} |`);
  } finally {
    await bench.stop();
  }
}

runBench(main);
