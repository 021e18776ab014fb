// Edge overhead before/after a change, fair on a shared machine: the bare Hono handler, the decide path of a
// "before" checkout and the decide path of this one run side by side against the same services, in
// interleaved blocks (rotating order), so load from other processes falls on all three alike. Each target runs
// in its own workerd, whose CPU time during the target's own blocks is reported per request (Linux /proc):
// at concurrency 1 most of a decide's overhead is that CPU, and it varies far less than latency does. So is
// this bench process's own (the client, and the stand-ins every target calls: the Upstash bridge, the engine, the
// Neon bridge, the edge's log lines).
//   npx tsx bench/edge-ab.ts <before-root>[,<another-root>...] [requests-per-target] [block] [concurrencies] [block-ms]
// Several roots (comma-separated) put each checkout in the rotation, e.g. to place a change between two commits;
// concurrencies is a comma-separated list (default 1,16). A block sends at least `block` requests and runs for at
// least `block-ms` (default 1000): the decide leaves work behind it (the usage batch's window and the ledger's
// journal flush, 200 ms each), and a block shorter than a few windows hands its own to the next target's block,
// or to its own next one in some rotation orders (docs/benchmarks.md, issue 53). 0 gives count-only blocks.
// Rounds go on until every target has sent `requests-per-target`, so with time-bound blocks each has at least that
// many (the bare handler many more). SVC_AB_DUMP=<path> writes every time, per target, to
// <path>-c<concurrency>.json.
import { writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { DECIDE_BODY } from "./support/bare-worker";
import { runBench, startEdgeBench } from "./support/edge-bench";
import { fundedAccountHeaders } from "./support/funded-account";
import { childWorkerdPids, processCpuMs } from "./support/process-cpu";

const BEFORE = (process.argv[2] ?? ".").split(",").map((root) => resolve(root));
const N = Number(process.argv[3] ?? 300);
const BLOCK = Number(process.argv[4] ?? 25);
const CONCURRENCIES = (process.argv[5] ?? "1,16").split(",").map(Number);
const BLOCK_MS = Number(process.argv[6] ?? 1000);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sends with `concurrency` in flight until `count` have started and `ms` have passed; each one's time. */
async function block(
  concurrency: number,
  count: number,
  ms: number,
  send: () => Promise<Response>,
): Promise<number[]> {
  const times: number[] = [];
  const start = performance.now();
  let started = 0;
  const more = () => started < count || performance.now() - start < ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) {
        started++;
        const s = performance.now();
        const res = await send();
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        times.push(performance.now() - s);
      }
    }),
  );
  return times;
}

async function main(): Promise<void> {
  const bench = await startEdgeBench();
  const { services, bare } = bench;
  const befores: Array<[string, string]> = [];
  for (const root of BEFORE) {
    const worker = await bench.edge({ entry: `${root}/workers/index.ts` });
    befores.push([BEFORE.length === 1 ? "decide, before" : `decide, ${basename(root)}`, worker.url]);
  }
  const after = await bench.edge();
  try {
    let n = 0;
    const decideOn = async (url: string) => {
      const headers = await fundedAccountHeaders(services.env, url);
      return () =>
        fetch(`${url}/v1/decide`, {
          method: "POST",
          headers: { ...headers, "idempotency-key": `ab-${Date.now()}-${n++}` },
          body: DECIDE_BODY,
        });
    };
    const targets: Array<[string, () => Promise<Response>]> = [
      [
        "bare Hono handler (workerd)",
        () => fetch(`${bare.url}/v1/decide`, { method: "POST", body: DECIDE_BODY }),
      ],
    ];
    for (const [label, url] of befores) targets.push([label, await decideOn(url)]);
    targets.push(["decide, after", await decideOn(after.url)]);
    for (const [, send] of targets) await block(1, 30, 0, send); // warm-up
    // One workerd per target, started in the targets' order: the CPU each uses during its own blocks.
    const pids = childWorkerdPids();
    if (pids.length !== targets.length)
      throw new Error(`${pids.length} workerd processes for ${targets.length} targets`);
    console.log(
      "| case | concurrency | requests | p50 ms | p99 ms | p50 − bare p50 | workerd CPU ms per request | bench process CPU ms per request |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const c of CONCURRENCIES) {
      const times = targets.map(() => [] as number[]);
      const cpuMs = targets.map(() => 0);
      const nodeMs = targets.map(() => 0);
      for (let round = 0; times.some((xs) => xs.length < N); round++)
        for (let j = 0; j < targets.length; j++) {
          const t = (j + round) % targets.length;
          const cpuBefore = processCpuMs(pids[t]!);
          const nodeBefore = process.cpuUsage();
          times[t]!.push(...(await block(c, BLOCK, BLOCK_MS, targets[t]![1])));
          cpuMs[t]! += processCpuMs(pids[t]!) - cpuBefore;
          const node = process.cpuUsage(nodeBefore);
          nodeMs[t]! += (node.user + node.system) / 1000;
        }
      if (process.env.SVC_AB_DUMP)
        writeFileSync(
          `${process.env.SVC_AB_DUMP}-c${c}.json`,
          JSON.stringify(Object.fromEntries(targets.map(([label], i) => [label, times[i]]))),
        );
      const sorted = times.map((xs) => [...xs].sort((a, b) => a - b));
      const bareP50 = pct(sorted[0]!, 50);
      targets.forEach(([label], i) => {
        const s = sorted[i]!;
        console.log(
          `| ${label} | ${c} | ${s.length} | ${pct(s, 50).toFixed(1)} | ${pct(s, 99).toFixed(1)} | ${i === 0 ? "" : (pct(s, 50) - bareP50).toFixed(1)} | ${(cpuMs[i]! / s.length).toFixed(2)} | ${(nodeMs[i]! / s.length).toFixed(2)} |`,
        );
      });
    }
  } finally {
    await bench.stop();
  }
}

runBench(main);
