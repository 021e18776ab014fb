import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EdgeWorker, startEdgeWorker } from "../../scripts/stack/edge-worker";
import { type Services, startServices } from "../../scripts/stack/services";
import { bareWorker } from "./bare-worker";
import { BENCH_ADMIN_TOKEN, BENCH_GPU_SECRET } from "./funded-account";
import { instantEngine } from "./instant-engine";

/** What the edge benchmarks run against, and the Workers under test they start on it. */
export interface EdgeBench {
  services: Services;
  /** The bare Hono handler in workerd: the baseline of every edge measurement. */
  bare: { url: string };
  /** Starts a Worker under test (default entry: this checkout's `workers/index.ts`) with the stack's bindings. */
  edge(opts?: {
    entry?: string;
    bindings?: Record<string, string>;
    inspectorPort?: number;
  }): Promise<EdgeWorker>;
  /** Stops the Workers under test (last started first), the baseline, the engine and the data services. */
  stop(): Promise<void>;
}

/**
 * The edge benchmarks' local stack: the data services (PGlite, or PostgreSQL at BENCH_DATABASE_URL), the
 * engine stand-in that answers instantly, and the bare handler.
 */
export async function startEdgeBench(): Promise<EdgeBench> {
  const services = await startServices({ databaseUrl: process.env.BENCH_DATABASE_URL ?? "", upstashUrl: "" });
  const engine = await instantEngine();
  const bare = await bareWorker();
  const bindings = {
    ...services.env,
    GPU_POOL_URLS: engine.url,
    GPU_SIGNING_SECRET: BENCH_GPU_SECRET,
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
  };
  const edges: EdgeWorker[] = [];
  return {
    services,
    bare,
    async edge(opts = {}) {
      const worker = await startEdgeWorker({
        entry: opts.entry,
        // One request line per request (issue 43): to a file, not the bench's terminal, piped from workerd with
        // no JavaScript per line (this Node process also serves the stand-ins the decide calls). SVC_BENCH_LOG_WRITES
        // =sync or =buffered measures it through the tests' line handler (docs/benchmarks.md, issue 53).
        logFile: join(tmpdir(), "svc-bench-edge.jsonl"),
        logWrites: logWrites(process.env.SVC_BENCH_LOG_WRITES),
        bindings: { ...bindings, ...opts.bindings },
        ...(opts.inspectorPort !== undefined && { inspectorPort: opts.inspectorPort }),
      });
      edges.push(worker);
      return worker;
    },
    async stop() {
      for (const worker of edges.reverse()) await worker.stop();
      await bare.stop();
      await engine.stop();
      await services.stop();
    },
  };
}

function logWrites(name: string | undefined): "sync" | "buffered" | "piped" {
  return name === "sync" || name === "buffered" ? name : "piped";
}

/** Runs a benchmark's `main`; a failure is printed and exits 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
