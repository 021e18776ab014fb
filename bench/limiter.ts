// The admission script's cost against the length of the rate-limit logs (calls in the last 60 s), through the
// local Upstash bridge, for this checkout and optionally a "before" one (interleaved, same Redis).
//   npx tsx bench/limiter.ts [before-root]
import { resolve } from "node:path";
import { Redis } from "@upstash/redis";
import { startRedis } from "../scripts/stack/redis";
import { startUpstashBridge } from "../scripts/stack/upstash-bridge";
import { AdmissionStore } from "../workers/stores/admission";
import type { AdmitInput } from "../workers/stores/rate-limit-keys";

type Store = Pick<AdmissionStore, "enter" | "leave">;

async function main(): Promise<void> {
  const redisServer = await startRedis({});
  const bridge = await startUpstashBridge({ redisUrl: redisServer.url });
  const redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
  const access = { run: <T>(op: (r: Redis) => Promise<T>) => op(redis) };
  const stores: Array<[string, Store]> = [["this checkout", new AdmissionStore(access as never)]];
  if (process.argv[2]) {
    const mod = (await import(resolve(process.argv[2], "workers/stores/admission.ts"))) as {
      AdmissionStore: new (a: unknown) => Store;
    };
    stores.unshift(["before", new mod.AdmissionStore(access)]);
  }
  const input = (label: string, fill: number, id: string, now: number): AdmitInput => ({
    keyId: `bench-${label}-${fill}`,
    accountId: `bench-${label}-${fill}`,
    mode: "live",
    key: { rpm: 1e9, tpm: 1e12 },
    account: { rpm: 1e9, tpm: 1e12 },
    concurrency: 1e6,
    dailyQuota: 0,
    day: "2026-11-23",
    tokens: 40,
    requestId: id,
    leaseMs: 60_000,
    now,
  });
  console.log("| calls in the last 60 s | ENTER p50 ms | LEAVE p50 ms |");
  console.log("| --- | --- | --- |");
  try {
    for (const fill of [0, 300, 3000]) {
      const now = Date.now();
      for (const [label, store] of stores)
        for (let i = 0; i < fill; i++) await store.enter(input(label, fill, `fill-${i}`, now - 30_000), null);
      const times = stores.map(() => ({ enter: [] as number[], leave: [] as number[] }));
      for (let i = 0; i < 200; i++)
        for (const [j, [label, store]] of stores.entries()) {
          const inp = input(label, fill, `m-${i}`, now);
          const t0 = performance.now();
          await store.enter(inp, null);
          const t1 = performance.now();
          await store.leave(inp, null, { refundTokens: 0, testQuota: false, undoRequest: false });
          times[j]!.enter.push(t1 - t0);
          times[j]!.leave.push(performance.now() - t1);
        }
      const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2);
      for (const [j, [label]] of stores.entries())
        console.log(`| ${fill} (${label}) | ${p50(times[j]!.enter)} | ${p50(times[j]!.leave)} |`);
    }
  } finally {
    await bridge.stop();
    await redisServer.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
