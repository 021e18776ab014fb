// Edge overhead: POST /v1/decide end to end through the Worker (auth, validation, tokenizer, idempotency,
// rate limits, ledger debit, signed dispatch, decision, usage event) with an engine stand-in that answers
// instantly, against a bare Hono handler in workerd measured in the same run.
//   npx tsx bench/edge.ts [requests-per-case]
import { DECIDE_BODY as BODY } from "./support/bare-worker";
import { runBench, startEdgeBench } from "./support/edge-bench";
import { fundedAccountHeaders } from "./support/funded-account";

const N = Number(process.argv[2] ?? 400);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(
  label: string,
  concurrency: number,
  send: (i: number) => Promise<Response>,
): Promise<{ row: string; p50: number }> {
  for (let i = 0; i < 20; i++) await (await send(-1 - i)).arrayBuffer(); // warm-up
  const times: number[] = [];
  let next = 0;
  let errors = 0;
  const refusals = new Map<string, number>();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < N) {
        const i = next++;
        const s = performance.now();
        const res = await send(i);
        const body = await res.arrayBuffer();
        if (res.status !== 200) {
          errors++;
          const code = (JSON.parse(new TextDecoder().decode(body)) as { error?: { code?: string } }).error
            ?.code;
          const what = `${res.status} ${code ?? ""}`;
          refusals.set(what, 1 + (refusals.get(what) ?? 0));
        }
        times.push(performance.now() - s);
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  const refused = [...refusals].map(([what, n]) => `${n}× ${what}`).join(", ");
  const p50 = pct(times, 50);
  return {
    row: `| ${label} | ${concurrency} | ${N} | ${p50.toFixed(1)} | ${pct(times, 99).toFixed(1)} | ${(N / wall).toFixed(0)} | ${errors}${refused ? ` (${refused})` : ""} |`,
    p50,
  };
}

async function main(): Promise<void> {
  // PGlite by default; BENCH_DATABASE_URL runs against a PostgreSQL server (its work then leaves this process).
  const bench = await startEdgeBench();
  const { services, bare } = bench;
  const edge = await bench.edge();
  try {
    const headers = await fundedAccountHeaders(services.env, edge.url);
    const rows: string[] = [];
    const overheads: string[] = [];
    for (const c of [1, 16]) {
      const bareRun = await run("bare Hono handler (workerd)", c, () =>
        fetch(`${bare.url}/v1/decide`, { method: "POST", headers, body: BODY }),
      );
      const key = await run("GET /v1/key (auth only)", c, () => fetch(`${edge.url}/v1/key`, { headers }));
      const plans = await run("GET /v1/plans (public; per-address limit, seat counts)", c, (i) =>
        fetch(`${edge.url}/v1/plans`, { headers: { "cf-connecting-ip": `10.${c}.${i % 250}.1` } }),
      );
      const balance = await run("GET /v1/balance (auth + ledger DO + limiter peek)", c, () =>
        fetch(`${edge.url}/v1/balance`, { headers }),
      );
      const noKey = await run("POST /v1/decide, no idempotency key", c, () =>
        fetch(`${edge.url}/v1/decide`, { method: "POST", headers, body: BODY }),
      );
      const freshKey = await run("POST /v1/decide, fresh idempotency key", c, (i) =>
        fetch(`${edge.url}/v1/decide`, {
          method: "POST",
          headers: { ...headers, "idempotency-key": `b-${c}-${i}-${Date.now()}` },
          body: BODY,
        }),
      );
      rows.push(...[bareRun, key, plans, balance, noKey, freshKey].map((r) => r.row));
      const over = (r: { p50: number }) => (r.p50 - bareRun.p50).toFixed(1);
      overheads.push(
        `concurrency ${c}: decide p50 overhead over the bare handler ${over(noKey)} ms without an idempotency key, ${over(freshKey)} ms with a fresh one`,
      );
    }
    console.log("| case | concurrency | requests | p50 ms | p99 ms | req/s | non-200 |");
    console.log("| --- | --- | --- | --- | --- | --- | --- |");
    for (const r of rows) console.log(r);
    console.log("");
    for (const o of overheads) console.log(o);
    console.log("goal (issue 12): p50 overhead ≤ 5 ms at concurrency 1 on the local stack");
  } finally {
    await bench.stop();
  }
}

runBench(main);
