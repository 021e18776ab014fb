import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningWorker, startWorker } from "../gpu-worker/src/spawn-worker";
import { type FakeFallback, startFakeFallback } from "../scripts/stack/fake-fallback";
import { startPostgres } from "../scripts/stack/postgres";
import { type RedisHandle, startRedis } from "../scripts/stack/redis";
import { DEFAULT_READY_TIMEOUT_MS, type Stack, startStack } from "../scripts/stack/start-stack";
import { startUpstashBridge, type UpstashBridge } from "../scripts/stack/upstash-bridge";
import { type PausableProxy, startPausableProxy } from "./pausable-proxy";

const HERE = dirname(fileURLToPath(import.meta.url));
/** `npm start`'s bound on a GPU worker's start (SVC_READY_TIMEOUT_MS): a shared, loaded box needs more. */
const READY_TIMEOUT_MS = Number(process.env.SVC_READY_TIMEOUT_MS || DEFAULT_READY_TIMEOUT_MS);

/** The connection string with its host:port replaced by the stall proxy's. */
function proxied(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  u.port = String(port);
  return u.toString();
}

/** The faults the injector can switch on and off. */
export interface Faults {
  /** SIGKILLs the GPU worker process (requests in flight are cut). */
  killGpu(): void;
  /** Starts a new GPU worker process on the same port; resolves once it is ready. */
  restartGpu(): Promise<void>;
  /** Stops the Redis server (its memory, so every idempotency record and counter, is lost). */
  stopRedis(): Promise<void>;
  /** Starts an empty Redis server on the same port. */
  startRedis(): Promise<void>;
  /** Stalls Postgres: the proxy in front of it stops moving bytes; nothing is refused. */
  stallPostgres(): void;
  resumePostgres(): void;
  /** Makes the hosted fallback answer 500 to every call, or answer again. */
  failFallback(on: boolean): void;
}

export interface SoakStack {
  baseUrl: string;
  adminToken: string;
  /** Postgres connection string (direct to PGlite, not through the stall proxy): for the checker. */
  databaseUrl: string;
  neonWsProxy: string;
  faults: Faults;
  stack: Stack;
  stop(): Promise<void>;
}

/**
 * `npm start`'s stack (startStack: Neon bridge, Upstash bridge, Miniflare, GPU worker, fakes) on data services
 * started here so faults can reach them: PGlite (in memory) behind a pausable TCP proxy, a Redis server without
 * persistence that can be stopped and started on its port, and the fake fallback with its failure switch. The
 * Worker's entry is `soak/worker-entry.ts` (the same app plus a ledger read route).
 */
export async function startSoakStack(
  log: (line: string) => void = () => {},
  databaseUrl = process.env.SOAK_DATABASE_URL ?? "",
): Promise<SoakStack> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e) => log(`stop failed: ${String(e)}`));
    stops.length = 0;
  };
  const saved = { ...process.env };
  try {
    // A real PostgreSQL when given (SOAK_DATABASE_URL): its database is migrated and the soak's accounts added.
    const pg = await startPostgres({ databaseUrl });
    stops.push(pg.stop);
    const pgPort = Number(new URL(pg.url).port || 5432);
    const proxy: PausableProxy = await startPausableProxy(pgPort);
    stops.push(proxy.close);
    let redis: RedisHandle = await startRedis();
    stops.push(() => redis.stop());
    const bridge: UpstashBridge = await startUpstashBridge({ redisUrl: redis.url });
    stops.push(bridge.stop);
    const fallback: FakeFallback = await startFakeFallback();
    stops.push(fallback.close);
    const adminToken = randomBytes(24).toString("hex");
    const gpuSecret = randomBytes(24).toString("hex");
    const dataDir = mkdtempSync(join(tmpdir(), "svc-soak-"));
    // SOAK_KEEP_DATA=1 keeps it (its logs/edge.jsonl and logs/gpu.jsonl) for a look after the run.
    stops.push(async () =>
      process.env.SOAK_KEEP_DATA
        ? log(`soak: data and logs kept in ${dataDir}`)
        : rmSync(dataDir, { recursive: true, force: true }),
    );

    Object.assign(process.env, {
      DATABASE_URL: proxied(pg.url, proxy.port),
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      FALLBACK_BASE_URL: fallback.url,
      FALLBACK_DEPLOYMENT: "fake-gpt",
      FALLBACK_API_KEY: "local-fake",
      GPU_SIGNING_SECRET: gpuSecret,
      ADMIN_TOKEN: adminToken,
    });
    const stack = await startStack({
      dataDir,
      entry: join(HERE, "worker-entry.ts"),
      gpuEnv: { SVC_THREADS: "1" },
      readyTimeoutMs: READY_TIMEOUT_MS,
      log,
    });
    stops.push(stack.stop);
    process.env = saved;

    const gpuPort = new URL(stack.env.GPU_POOL_URLS ?? "http://127.0.0.1:0").port;
    let gpu: RunningWorker | undefined = stack.gpu;
    const faults: Faults = {
      killGpu() {
        gpu?.child.kill("SIGKILL");
      },
      async restartGpu() {
        await gpu?.stop();
        gpu = await startWorker(
          { GPU_SIGNING_SECRET: gpuSecret, PORT: gpuPort, SVC_THREADS: "1" },
          READY_TIMEOUT_MS,
        );
      },
      async stopRedis() {
        await redis.stop();
      },
      async startRedis() {
        redis = await startRedis({ port: redis.port, binary: redis.server.path });
      },
      stallPostgres: () => proxy.pause(),
      resumePostgres: () => proxy.resume(),
      failFallback: (on) => fallback.setMode(on ? "error" : "ok"),
    };
    // The GPU worker started here after a kill is not the stack's: stop it first.
    stops.splice(stops.indexOf(stack.stop) + 1, 0, async () => {
      if (gpu !== stack.gpu) await gpu?.stop();
    });
    return {
      baseUrl: stack.baseUrl,
      adminToken,
      databaseUrl: pg.url,
      neonWsProxy: stack.env.NEON_WS_PROXY ?? "",
      faults,
      stack,
      stop,
    };
  } catch (error) {
    process.env = saved;
    await stop();
    throw error;
  }
}
