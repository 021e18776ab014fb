// Edge overhead before/after a change, fair on a shared machine: the bare Hono handler, the decide path of a
// "before" checkout and the decide path of this one run side by side against the same services, in
// interleaved blocks (rotating order), so load from other processes falls on all three alike.
//   npx tsx bench/edge-ab.ts <before-root> [requests-per-target] [block]
import { resolve } from "node:path";
import { DECIDE_BODY } from "./support/bare-worker";
import { runBench, startEdgeBench } from "./support/edge-bench";
import { fundedAccountHeaders } from "./support/funded-account";

const BEFORE = resolve(process.argv[2] ?? ".");
const N = Number(process.argv[3] ?? 300);
const BLOCK = Number(process.argv[4] ?? 25);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function block(concurrency: number, count: number, send: () => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  let left = count;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
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
  const before = await bench.edge({ entry: `${BEFORE}/workers/index.ts` });
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
      ["decide, before", await decideOn(before.url)],
      ["decide, after", await decideOn(after.url)],
    ];
    for (const [, send] of targets) await block(1, 30, send); // warm-up
    console.log("| case | concurrency | requests | p50 ms | p99 ms | p50 − bare p50 |");
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const c of [1, 16]) {
      const times = targets.map(() => [] as number[]);
      for (let round = 0; round * BLOCK < N; round++)
        for (let j = 0; j < targets.length; j++) {
          const t = (j + round) % targets.length;
          times[t]!.push(...(await block(c, BLOCK, targets[t]![1])));
        }
      const sorted = times.map((xs) => [...xs].sort((a, b) => a - b));
      const bareP50 = pct(sorted[0]!, 50);
      targets.forEach(([label], i) => {
        const s = sorted[i]!;
        console.log(
          `| ${label} | ${c} | ${s.length} | ${pct(s, 50).toFixed(1)} | ${pct(s, 99).toFixed(1)} | ${i === 0 ? "" : (pct(s, 50) - bareP50).toFixed(1)} |`,
        );
      });
    }
  } finally {
    await bench.stop();
  }
}

runBench(main);
