import { MODELS, V1_LIMITS } from "../../schema/models";
import { contextSizeFor } from "./context-size";
import { defaultModelPath } from "./model-check";

/** Every active GPU version of the catalog, each with its weights, layout and calibration. */
export const SERVED_BY_DEFAULT = MODELS.filter((m) => m.served_by === "gpu" && m.status === "active").map(
  (m) => m.id,
);

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
    /** Exact versions served (comma-separated `SVC_MODEL_VERSION`; default every active GPU version). */
    modelVersions: env.SVC_MODEL_VERSION
      ? env.SVC_MODEL_VERSION.split(",").map((v) => v.trim())
      : SERVED_BY_DEFAULT,
    threads: int("SVC_THREADS", 1),
    /** Sequences per lane. */
    sequences: Math.max(1, int("SVC_SEQUENCES", 2)),
    /** Independent contexts per weights file, each with SVC_THREADS threads (issue 30; measured in docs/benchmarks.md). */
    lanes: Math.max(1, int("SVC_LANES", 2)),
    /** A request keeps the prefix head its sequence's previous request evaluated where the bits are the same (prefix-reuse.ts); 0 turns it off. */
    reusePrefixes: int("SVC_REUSE_PREFIXES", 1) !== 0,
    /** A live request's questions may be spread over a wholly idle lane (helper-share.ts); 0 keeps each request on one lane. */
    spreadQuestions: int("SVC_SPREAD_QUESTIONS", 1) !== 0,
    /** One weights file's batch decodes wait for another file's live work (lanes.ts LiveBoard); 0 lets each file alone (the benchmarks' baseline). */
    sharedPriority: int("SVC_SHARED_PRIORITY", 1) !== 0,
    queueMax: int("SVC_QUEUE_MAX", 16),
    /** Default: what the catalogue's largest request needs (`contextSizeFor`). */
    contextSize: int("SVC_CONTEXT_SIZE", contextSizeFor(V1_LIMITS)),
    secret: env.GPU_SIGNING_SECRET ?? "",
    port: int("PORT", 8788),
    host: env.HOST || "0.0.0.0",
    /**
     * The base URL the edge calls this worker at, bound into every signature (`SVC_WORKER_URL`, else
     * `SVC_ANNOUNCE_URL`); unset, a worker on a loopback host is `http://<host>:<port>` (local development).
     */
    workerUrl: (env.SVC_WORKER_URL || env.SVC_ANNOUNCE_URL || "").replace(/\/+$/, "") || undefined,
    /** Port of `/livez`, `/readyz` and `/metrics` unsigned (kubelet, Prometheus); default 9788 off loopback. */
    opsPort: env.SVC_OPS_PORT ? int("SVC_OPS_PORT", 0) : undefined,
    /** `SVC_CALIBRATION` overrides the catalog's artifact; only with a single version. */
    calibrationOverride: env.SVC_CALIBRATION || undefined,
  };
}
