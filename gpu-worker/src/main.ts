import { type EvaluationLayout, findModel, SVC1_LAYOUT } from "../../schema/models";
import { Announcer, announcerConfig } from "./announce";
import { loadCalibration } from "./calibration";
import { catalogCalibrationPath } from "./calibration-pin";
import { configFromEnv } from "./config";
import { Engine } from "./engine";
import { ModelFileError, verifyModelFile } from "./model-check";
import { openScorer } from "./scorer";
import { createWorkerServer } from "./server";

/**
 * The evaluation layout of the versions served together (they share one scorer, so one layout); a version the
 * catalogue does not know evaluates with svc-1's.
 */
function sharedLayout(versions: string[]): EvaluationLayout {
  const layouts = new Set(versions.map((v) => JSON.stringify(findModel(v)?.gpu?.layout ?? SVC1_LAYOUT)));
  if (layouts.size > 1)
    throw new ModelFileError(`SVC_MODEL_VERSION ${versions.join(", ")} mixes evaluation layouts.`);
  return JSON.parse([...layouts][0] as string) as EvaluationLayout;
}

async function main(): Promise<void> {
  const cfg = configFromEnv();
  if (!cfg.secret)
    throw new ModelFileError("GPU_SIGNING_SECRET is not set. Fix: set it to the edge's shared secret.");
  if (cfg.calibrationOverride && cfg.modelVersions.length !== 1)
    throw new ModelFileError("SVC_CALIBRATION needs a single SVC_MODEL_VERSION.");
  const layout = sharedLayout(cfg.modelVersions);
  const announce = announcerConfig();
  const check = await verifyModelFile(cfg.modelPath);
  const calibrations = cfg.modelVersions.map(
    (v) => [v, loadCalibration(cfg.calibrationOverride ?? catalogCalibrationPath(v))] as const,
  );
  let engines: Map<string, Engine> | null = null;
  const { server, metrics } = createWorkerServer(cfg, () => engines);
  await new Promise<void>((resolve) => server.listen(cfg.port, cfg.host, resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : cfg.port;
  console.log(
    `engine: listening on ${cfg.host}:${port} (models ${cfg.modelVersions.join(", ")}, sha256 ${check.cached ? "stamp" : "verified"})`,
  );

  const t0 = performance.now();
  const scorer = await openScorer({ ...cfg, layout });
  const ready = new Map(calibrations.map(([v, cal]) => [v, new Engine(scorer, cal, v)]));
  // Warm-up: one tiny request per version, so the first real call does not pay for lazy allocation.
  for (const [v, e] of ready)
    await e.score({
      request_id: "warmup",
      model: v,
      state: "warm up",
      questions: [{ id: "w", type: "check", instructions: "Ready?", criteria: [] }],
    });
  engines = ready;
  // The registry (docs/deploy.md): announced only once warm, with what /readyz says and the load gauges.
  const announcer =
    announce &&
    new Announcer(announce, () => ({
      numerics_class: scorer.numerics.id,
      models: [...ready.keys()],
      in_flight: metrics.inFlight,
      queue_depth: metrics.queueDepth,
      sequences: cfg.sequences,
      queue_max: cfg.queueMax,
    }));
  announcer?.start();
  const served = calibrations.map(([v, c]) => `${v}: calibration ${c.version}, framing ${c.framing}`);
  console.log(
    `engine: ready in ${Math.round(performance.now() - t0)} ms (numerics class ${scorer.numerics.id}, threads ${cfg.threads}, sequences ${cfg.sequences}; ${served.join("; ")})`,
  );
  const unlisted = cfg.modelVersions.filter(
    (v) => !findModel(v)?.gpu?.numerics_classes.includes(scorer.numerics.id),
  );
  if (unlisted.length)
    console.warn(
      `engine: numerics class ${scorer.numerics.id} is not one the catalogue serves ${unlisted.join(", ")} on: this worker's answers differ from the recorded ones (scripts/ggml-cpu-pin.mjs pins CPU workers; docs/decisions.md)`,
    );

  const stop = () => {
    server.close();
    Promise.all([announcer?.stop(), scorer.close()]).finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((err: unknown) => {
  console.error(`engine: refusing to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
