import { V1_LIMITS } from "../../schema/models";
import { loadCalibration } from "./calibration";
import { catalogCalibrationPath } from "./calibration-pin";
import { contextSizeFor } from "./context-size";
import { Engine } from "./engine";
import { defaultModelPath, ModelFileError, verifyModelFile } from "./model-check";
import { openScorer } from "./scorer";
import { createWorkerServer } from "./server";

/** Worker configuration from the environment (documented in gpu-worker/README.md). */
export function configFromEnv(env = process.env) {
  const int = (name: string, fallback: number) => {
    const v = env[name];
    if (v === undefined || v === "") return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`);
    return n;
  };
  return {
    modelPath: defaultModelPath(env),
    modelVersion: env.SVC_MODEL_VERSION || "svc-1.0.0",
    threads: int("SVC_THREADS", 1),
    sequences: Math.max(1, int("SVC_SEQUENCES", 2)),
    queueMax: int("SVC_QUEUE_MAX", 16),
    /** Default: what the catalogue's largest request needs (`contextSizeFor`). */
    contextSize: int("SVC_CONTEXT_SIZE", contextSizeFor(V1_LIMITS)),
    batchSize: int("SVC_BATCH_SIZE", 512),
    secret: env.GPU_SIGNING_SECRET ?? "",
    port: int("PORT", 8788),
    host: env.HOST || "0.0.0.0",
    calibrationPath: env.SVC_CALIBRATION || catalogCalibrationPath(env.SVC_MODEL_VERSION || "svc-1.0.0"),
  };
}

async function main(): Promise<void> {
  const cfg = configFromEnv();
  if (!cfg.secret)
    throw new ModelFileError("GPU_SIGNING_SECRET is not set. Fix: set it to the edge's shared secret.");
  const check = await verifyModelFile(cfg.modelPath);
  const calibration = loadCalibration(cfg.calibrationPath);
  let engine: Engine | null = null;
  const { server } = createWorkerServer(cfg, () => engine);
  await new Promise<void>((resolve) => server.listen(cfg.port, cfg.host, resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : cfg.port;
  console.log(
    `engine: listening on ${cfg.host}:${port} (model ${cfg.modelVersion}, sha256 ${check.cached ? "stamp" : "verified"})`,
  );

  const t0 = performance.now();
  const scorer = await openScorer(cfg);
  const ready = new Engine(scorer, calibration, cfg.modelVersion);
  // Warm-up: one tiny request, so the first real call does not pay for lazy allocation.
  await ready.score({
    request_id: "warmup",
    model: cfg.modelVersion,
    state: "warm up",
    questions: [{ id: "w", type: "check", instructions: "Ready?", criteria: [] }],
  });
  engine = ready;
  console.log(
    `engine: ready in ${Math.round(performance.now() - t0)} ms (threads ${cfg.threads}, sequences ${cfg.sequences}, calibration ${calibration.version}, framing ${calibration.framing})`,
  );

  const stop = () => {
    server.close();
    scorer.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((err: unknown) => {
  console.error(`engine: refusing to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
