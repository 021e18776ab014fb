// The local stack bench/batch.ts measures on, built like soak/evaluation.ts's but with every part it restarts in
// hand: PGlite + Neon bridge, a Redis server (stopped and started empty on its port) behind the Upstash bridge,
// one real GPU worker serving svc-1.4.0 (SIGKILLed and started again on its port), and the edge in workerd with
// its Durable Objects and R2 persisted in a temp dir (stopped and started again on them).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningWorker, startWorker } from "../../gpu-worker/src/spawn-worker";
import type { QueryFn } from "../../scripts/migrations";
import { type EdgeWorker, startEdgeWorker } from "../../scripts/stack/edge-worker";
import { withNodeClient } from "../../scripts/stack/neon-node";
import { type RedisHandle, startRedis } from "../../scripts/stack/redis";
import { type SeedAccountOptions, seedAccount } from "../../scripts/stack/seed";
import { type Services, startServices } from "../../scripts/stack/services";
import { startUpstashBridge, type UpstashBridge } from "../../scripts/stack/upstash-bridge";
import { BENCH_ADMIN_TOKEN, BENCH_GPU_SECRET } from "./funded-account";

export const BATCH_BENCH_MODEL = "svc-1.4.0";
/** A GPU worker's start on a loaded 2-core box can take minutes (SVC_READY_TIMEOUT_MS raises it). */
const READY_MS = Number(process.env.SVC_READY_TIMEOUT_MS || 300_000);

export interface BatchStack {
  edgeUrl(): string;
  services: Services;
  /** Seeds an account with one live key (limits no bench reaches unless given) and credits it `funds`. */
  liveAccount(funds: number, seed?: SeedAccountOptions): Promise<{ accountId: string; secret: string }>;
  query<T>(fn: (q: QueryFn) => Promise<T>): Promise<T>;
  killGpu(): void;
  startGpu(): Promise<void>;
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
  restartEdge(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBatchStack(log: (s: string) => void): Promise<BatchStack> {
  let redis: RedisHandle = await startRedis();
  const bridge: UpstashBridge = await startUpstashBridge({ redisUrl: redis.url });
  const services = await startServices({
    databaseUrl: "",
    upstashUrl: bridge.url,
    upstashToken: bridge.token,
  });
  const persistDir = mkdtempSync(join(tmpdir(), "svc-bench-batch-"));
  const gpuEnv = {
    GPU_SIGNING_SECRET: BENCH_GPU_SECRET,
    SVC_MODEL_VERSION: BATCH_BENCH_MODEL,
    SVC_THREADS: "1",
  };
  let gpu: RunningWorker = await startWorker(gpuEnv, READY_MS);
  const gpuPort = new URL(gpu.url).port;
  const startEdge = () =>
    startEdgeWorker({
      bindings: {
        ...services.env,
        ENVIRONMENT: "local",
        GPU_SIGNING_SECRET: BENCH_GPU_SECRET,
        GPU_POOL_URLS: gpu.url,
        ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      },
      persistDir,
    });
  let edge: EdgeWorker = await startEdge();
  log(`stack up: GPU worker ${gpu.url} (${BATCH_BENCH_MODEL}), edge ${edge.url}, data in ${persistDir}`);
  const query: BatchStack["query"] = (fn) =>
    withNodeClient(services.env.DATABASE_URL, { wsProxy: services.env.NEON_WS_PROXY }, (q) => fn(q));
  return {
    edgeUrl: () => edge.url,
    services,
    query,
    async liveAccount(funds, seed) {
      const acct = await query((q) =>
        seedAccount(q, {
          rpmLimit: 1_000_000,
          tpmLimit: 1_000_000_000,
          ...seed,
          keys: [{ mode: "live" }],
        }),
      );
      const res = await fetch(`${edge.url}/internal/ledger/credit`, {
        method: "POST",
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          account_id: acct.accountId,
          amount_micro_cents: funds,
          payment_id: `bench_batch_${acct.accountId}`,
        }),
      });
      if (res.status !== 200) throw new Error(`credit answered ${res.status}: ${await res.text()}`);
      return { accountId: acct.accountId, secret: acct.keys[0]!.secret };
    },
    killGpu: () => gpu.child.kill("SIGKILL"),
    async startGpu() {
      await gpu.stop();
      gpu = await startWorker({ ...gpuEnv, PORT: gpuPort }, READY_MS);
    },
    stopRedis: () => redis.stop(),
    async startRedis() {
      redis = await startRedis({ port: redis.port, binary: redis.server.path });
    },
    async restartEdge() {
      await edge.stop();
      edge = await startEdge();
    },
    async stop() {
      await edge.stop().catch(() => {});
      await gpu.stop().catch(() => {});
      await services.stop();
      await bridge.stop().catch(() => {});
      await redis.stop().catch(() => {});
      rmSync(persistDir, { recursive: true, force: true });
    },
  };
}
