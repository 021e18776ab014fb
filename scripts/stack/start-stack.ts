import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningWorker, startWorker } from "../../gpu-worker/src/spawn-worker";
import { localAdminToken } from "./admin-token";
import { startConsoleFakes } from "./console-fakes";
import { creditDemo, type DemoInfo, ensureDemoAccount, retireDemo, takeDemo, writeDemo } from "./demo";
import { startEdgeWorker } from "./edge-worker";
import { startFakeAlerts } from "./fake-alerts";
import { startFakeFallback } from "./fake-fallback";
import { startLocalStripe } from "./fake-stripe";
import { freePort, waitFor } from "./free-port";
import { withNodeClient } from "./neon-node";
import { type ServedCheck, waitForServedDecide } from "./served-check";
import { type Services, startServices } from "./services";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Default bound on the wait for the GPU worker and the served check (`npm start`: SVC_READY_TIMEOUT_MS). */
export const DEFAULT_READY_TIMEOUT_MS = 120_000;

export interface StackOptions {
  /**
   * Where data lives across restarts (`.local` for `npm start`), the operator token included (`admin-token`,
   * unless ADMIN_TOKEN is set); omit for an all-in-memory, throw-away stack with a random token.
   * Logs are appended to `logs/edge.jsonl` (the Worker) and `logs/gpu.jsonl` (the GPU worker) in it.
   */
  dataDir?: string;
  /** Worker port (default: a free port). */
  port?: number;
  /** Start the GPU worker (default true); false saves ~10 s and a core when a test needs no model. */
  gpu?: boolean;
  /**
   * Seed the demo account and write `demo.json` in dataDir (else a temp dir removed on stop) (default true). Its
   * test key is the canary's `CANARY_API_KEY` unless the environment names one.
   */
  seed?: boolean;
  /** Extra Worker bindings (e.g. fakes' URLs); they override the stack's. */
  bindings?: Record<string, string>;
  /** The Worker's entry module (default `workers/index.ts`); the soak harness wraps it to read ledgers. */
  entry?: string;
  /** Extra environment of the GPU worker (e.g. SVC_MODEL_PATH). */
  gpuEnv?: Record<string, string>;
  /**
   * Bound on readiness, from the call: the GPU worker's /readyz, then a decide with the demo test key served
   * by it through the edge (default DEFAULT_READY_TIMEOUT_MS). Past it, startStack stops everything and throws.
   */
  readyTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface Stack {
  baseUrl: string;
  /** The Worker's bindings (DATABASE_URL, NEON_*, UPSTASH_*, GPU_*, ADMIN_TOKEN, ...). */
  env: Record<string, string>;
  services: Services;
  gpu?: RunningWorker;
  demo?: DemoInfo;
  /** Path of the demo.json written (when seeded): written once the stack is ready, moved to demo.last.json by stop(). */
  demoFile?: string;
  /** The console fakes: the e-mail inbox (`GET {emailUrl}/__inbox`) and the identity provider. */
  console?: { emailUrl?: string; idpUrl?: string };
  /** The alert capture server (`GET {alertsUrl}/alerts`), unless ALERT_WEBHOOK_URL names a real one. */
  alertsUrl?: string;
  /** The end-to-end check that a decide is served by the GPU (when the GPU worker runs and the demo is seeded). */
  served?: ServedCheck;
  /** Warnings met on the way (e.g. the credit route missing). */
  warnings: string[];
  stop(): Promise<void>;
}

/**
 * Starts the whole local stack: Postgres (PGlite or DATABASE_URL) + Neon bridge, redis (or
 * UPSTASH_REDIS_REST_URL) + Upstash bridge, migrations, the GPU worker, the edge Worker in workerd, and
 * the demo seed. Resolves only when every piece answers: with the GPU worker, once its /readyz is 200 and
 * a decide with the demo test key came back 200 from it through the edge; `demo.json` is written then.
 * Throws (after stopping what it started) when that takes longer than `readyTimeoutMs`.
 * Used by `npm start`, black-box tests and benchmarks.
 */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const log = opts.log ?? (() => {});
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const warnings: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e) => log(`stop failed: ${String(e)}`));
    stops.length = 0;
  };
  const readyTimeoutMs = opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const deadline = Date.now() + readyTimeoutMs;
  let gpuStart: Promise<{ worker?: RunningWorker; error?: Error }> = Promise.resolve({});
  let demoFile: string | undefined;
  let previousDemo: DemoInfo | undefined;
  try {
    if (opts.seed !== false) {
      let dir = dataDir;
      if (!dir) {
        const tmp = mkdtempSync(join(tmpdir(), "svc-stack-"));
        stops.push(async () => rmSync(tmp, { recursive: true, force: true }));
        dir = tmp;
      }
      demoFile = join(dir, "demo.json");
      previousDemo = takeDemo(demoFile);
    }
    const gpuSecret = process.env.GPU_SIGNING_SECRET || randomBytes(32).toString("hex");
    const adminToken = localAdminToken(dataDir);
    const wantGpu = opts.gpu !== false && existsSync(join(ROOT, "gpu-worker/src/main.ts"));

    const gpuPort = wantGpu ? await freePort() : 0;
    // The GPU worker loads its model while the data services and the Worker start; awaited at the end
    // (settled here, so a failure is reported there, not as an unhandled rejection).
    gpuStart = wantGpu
      ? startWorker(
          { ...opts.gpuEnv, GPU_SIGNING_SECRET: gpuSecret, PORT: String(gpuPort) },
          readyTimeoutMs,
          { logFile: dataDir && join(dataDir, "logs", "gpu.jsonl") },
        ).then(
          (worker) => {
            stops.push(worker.stop);
            return { worker };
          },
          (error: Error) => ({ error }),
        )
      : Promise.resolve({});
    const services = await startServices({
      pgDataDir: dataDir && join(dataDir, "pg"),
      redisDir: dataDir && join(dataDir, "redis"),
    });
    stops.push(services.stop);
    log(
      `stack: postgres ${services.env.DATABASE_URL.replace(/:[^:@/]*@/, ":***@")}, redis ${services.env.UPSTASH_REDIS_REST_URL}` +
        (services.redisServer ? ` (${services.redisServer.path}, ${services.redisServer.source})` : "") +
        (services.applied.length ? `, migrated ${services.applied.join(", ")}` : ""),
    );

    // The hosted fallback cannot run here: a fake speaking its exact HTTP shape stands in, unless
    // FALLBACK_BASE_URL names a real deployment.
    const fallback = process.env.FALLBACK_BASE_URL
      ? {
          FALLBACK_BASE_URL: process.env.FALLBACK_BASE_URL,
          FALLBACK_DEPLOYMENT: process.env.FALLBACK_DEPLOYMENT ?? "",
          FALLBACK_API_KEY: process.env.FALLBACK_API_KEY ?? "",
        }
      : await startFakeFallback().then((fake) => {
          stops.push(fake.close);
          return {
            FALLBACK_BASE_URL: fake.url,
            FALLBACK_DEPLOYMENT: "fake-gpt",
            FALLBACK_API_KEY: "local-fake",
          };
        });

    const consoleFakes = await startConsoleFakes();
    stops.push(consoleFakes.stop);
    const stripe = await startLocalStripe();
    stops.push(stripe.stop);
    const alerts = process.env.ALERT_WEBHOOK_URL ? undefined : await startFakeAlerts();
    if (alerts) stops.push(alerts.close);

    // Seeded before the Worker starts: the canary's key defaults to the demo test key (issue 54).
    const demo: DemoInfo | undefined = demoFile
      ? await withNodeClient(services.env.DATABASE_URL, { wsProxy: services.env.NEON_WS_PROXY }, (q) =>
          ensureDemoAccount(q, previousDemo, ""),
        )
      : undefined;
    const canaryKey = process.env.CANARY_API_KEY || demo?.test_key;

    const env: Record<string, string> = {
      ENVIRONMENT: "local",
      ...services.env,
      ...fallback,
      ...consoleFakes.bindings,
      ...stripe.bindings,
      ALERT_WEBHOOK_URL: alerts?.hookUrl ?? process.env.ALERT_WEBHOOK_URL ?? "",
      ...(canaryKey && { CANARY_API_KEY: canaryKey }),
      GPU_SIGNING_SECRET: gpuSecret,
      ADMIN_TOKEN: adminToken,
      ...(wantGpu ? { GPU_POOL_URLS: `http://127.0.0.1:${gpuPort}` } : {}),
      ...opts.bindings,
    };
    const worker = await startEdgeWorker({
      bindings: env,
      port: opts.port,
      persistDir: dataDir && join(dataDir, "do"),
      entry: opts.entry,
      logFile: dataDir && join(dataDir, "logs", "edge.jsonl"),
    });
    stops.push(worker.stop);
    stripe.connect(worker.url);
    log(
      `stack: Stripe ${stripe.url ? `fake at ${stripe.url} (pay pages, signed webhooks)` : "account from STRIPE_SECRET_KEY"}`,
    );
    await waitFor("the Worker's /livez", async () => {
      const res = await fetch(`${worker.url}/livez`);
      if (res.status !== 200) throw new Error(`status ${res.status}`);
    });

    if (demo) {
      Object.assign(demo, { base_url: worker.url, admin_token: env.ADMIN_TOKEN });
      const warning = await creditDemo(worker.url, env.ADMIN_TOKEN!, demo.account_id);
      if (warning) warnings.push(warning);
    }
    const { worker: gpu, error: gpuError } = await gpuStart;
    if (gpuError) throw gpuNotReady(gpuError);
    let served: ServedCheck | undefined;
    if (gpu) {
      log(`stack: GPU worker ready at ${gpu.url}`);
      if (demo) {
        served = await waitForServedDecide(worker.url, demo.test_key, deadline);
        log(`stack: a decide through the edge was served by the GPU (${served.model}) after ${served.ms} ms`);
      }
    }
    if (demoFile && demo) {
      const file = demoFile;
      writeDemo(file, demo);
      stops.push(async () => retireDemo(file));
    }
    for (const w of warnings) log(`warning: ${w}`);
    const consoleInfo = { emailUrl: consoleFakes.emailUrl, idpUrl: consoleFakes.idpUrl };
    return {
      baseUrl: worker.url,
      env,
      services,
      gpu,
      demo,
      demoFile,
      served,
      console: consoleInfo,
      alertsUrl: alerts?.url,
      warnings,
      stop,
    };
  } catch (error) {
    await gpuStart; // a GPU worker still loading registers its stop() first
    await stop();
    throw error;
  }
}

/** The GPU worker's start failure as `npm start` reports it: what happened, its last output, the fix. */
function gpuNotReady(error: Error): Error {
  const [first, ...output] = error.message.split("\n");
  const tail = output.filter((l) => l.trim()).slice(-8);
  return new Error(
    `the GPU worker did not become ready: ${first}${tail.length ? `\n  ${tail.join("\n  ")}` : ""}\n` +
      "Fix: run `npm run setup` (the model), raise SVC_READY_TIMEOUT_MS on a slow machine, " +
      "or set SVC_NO_GPU=1 to start without the GPU worker.",
  );
}
