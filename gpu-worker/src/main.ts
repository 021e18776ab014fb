import { findModel } from "../../schema/models";
import { Announcer, announcerConfig } from "./announce";
import { loadCalibration } from "./calibration";
import { catalogCalibrationPath } from "./calibration-pin";
import { configFromEnv } from "./config";
import { Engine } from "./engine";
import { LiveBoard } from "./lanes";
import { errorText, logEvent } from "./log";
import { ModelFileError, verifyModelFile } from "./model-check";
import { scorerGroups } from "./model-files";
import { openScorer, type Scorer } from "./scorer";
import { bindsLoopback, DEFAULT_OPS_PORT, selfUrl } from "./self-url";
import { createWorkerServer } from "./server";

/** How long a stopping worker waits for the calls in flight before it frees its models (deploy/: grace 90 s). */
const DRAIN_MS = 80_000;

async function main(): Promise<void> {
  const cfg = configFromEnv();
  if (!cfg.secret)
    throw new ModelFileError("GPU_SIGNING_SECRET is not set. Fix: set it to the edge's shared secret.");
  if (cfg.calibrationOverride && cfg.modelVersions.length !== 1)
    throw new ModelFileError("SVC_CALIBRATION needs a single SVC_MODEL_VERSION.");
  const groups = scorerGroups(cfg.modelVersions);
  const announce = announcerConfig();
  const checks = [];
  for (const g of groups) checks.push(await verifyModelFile(g.path, g.sha256));
  const calibrations = cfg.modelVersions.map(
    (v) => [v, loadCalibration(cfg.calibrationOverride ?? catalogCalibrationPath(v))] as const,
  );
  let engines: Map<string, Engine> | null = null;
  selfUrl(cfg, cfg.port);
  const loopback = bindsLoopback(cfg.host);
  let origin = "";
  const { server, opsServer, metrics, drain } = createWorkerServer(
    { ...cfg, origin: () => origin, opsOnPublic: loopback },
    () => engines,
  );
  await new Promise<void>((resolve) => server.listen(cfg.port, cfg.host, resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : cfg.port;
  origin = selfUrl(cfg, port);
  // Unsigned ops routes for the kubelet and Prometheus: on their own port, which the gateway does not route.
  const opsPort = cfg.opsPort ?? (loopback ? undefined : DEFAULT_OPS_PORT);
  if (opsPort !== undefined) await new Promise<void>((r) => opsServer.listen(opsPort, cfg.host, r));
  logEvent("info", "listening", {
    // spawn-worker.ts reads the port from this text.
    message: `listening on ${cfg.host}:${port}`,
    origin,
    ops_port: opsPort ?? null,
    models: cfg.modelVersions.join(","),
    sha256: checks.map((c) => (c.cached ? "stamp" : "verified")).join(","),
  });

  const t0 = performance.now();
  // One scorer per weights file; its versions share it (each with its own calibration and framing).
  const scorers = new Map<string, Scorer>();
  const liveBoard = cfg.sharedPriority ? new LiveBoard() : undefined;
  for (const g of groups) {
    const scorer = await openScorer({
      ...cfg,
      modelPath: g.path,
      layout: g.gpu.layout,
      reads: g.gpu.reads,
      liveBoard,
    });
    for (const v of g.versions) scorers.set(v, scorer);
  }
  const ready = new Map(calibrations.map(([v, cal]) => [v, new Engine(scorers.get(v) as Scorer, cal, v)]));
  // Every scorer of a worker runs with the same threads on the same kernels: one numerics class.
  const scorer = scorers.get(cfg.modelVersions[0] as string) as Scorer;
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
      sequences: cfg.sequences * cfg.lanes,
      queue_max: cfg.queueMax,
      // The svc-1 scorer's measured speed (the first version's), once something was measured.
      ...(scorer.load &&
        scorer.load().tokens_per_second > 0 && { tokens_per_second: scorer.load().tokens_per_second }),
    }));
  announcer?.start();
  const served = calibrations.map(([v, c]) => `${v}: calibration ${c.version}, framing ${c.framing}`);
  logEvent("info", "ready", {
    ready_ms: Math.round(performance.now() - t0),
    numerics_class: scorer.numerics.id,
    threads: cfg.threads,
    lanes: cfg.lanes,
    sequences: cfg.sequences,
    served: served.join("; "),
  });
  const unlisted = cfg.modelVersions.filter(
    (v) => !findModel(v)?.gpu?.numerics_classes.includes(scorer.numerics.id),
  );
  if (unlisted.length)
    logEvent("warn", "numerics_class_unlisted", {
      numerics_class: scorer.numerics.id,
      versions: unlisted.join(","),
      message:
        "this worker's answers differ from the recorded ones (scripts/ggml-cpu-pin.mjs pins CPU workers; docs/decisions.md)",
    });

  // A deploy's SIGTERM: refuse new calls, let the ones in flight finish (their contexts are still there), then
  // free the models. Bounded, so a stuck call cannot hold a rollout.
  // It keeps listening meanwhile, so a probe or a call on a kept-alive connection hears 503 and goes elsewhere.
  const stop = async () => {
    await Promise.all([
      announcer?.stop(),
      Promise.race([drain(), new Promise((r) => setTimeout(r, DRAIN_MS).unref())]),
    ]).catch(() => {});
    server.close();
    opsServer.close();
    await Promise.all([...new Set(scorers.values())].map((x) => x.close())).finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((err: unknown) => {
  logEvent("error", "refusing_to_start", { error: errorText(err) });
  process.exit(1);
});
