import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { signRequest } from "../../schema/signing";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface RunningWorker {
  url: string;
  child: ChildProcess;
  logs: () => string;
  /** Signed `POST /v1/score`; `body` is sent byte for byte. */
  score(body: string, secret?: string): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * Spawns `main.ts` on a free port with `env`; `output()` is everything it has printed so far, also appended to
 * `logFile` when given (`npm start`: `<data dir>/logs/gpu.jsonl`, one JSON object a line: gpu-worker/src/log.ts).
 */
function spawnMain(
  env: Record<string, string>,
  logFile?: string,
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "gpu-worker/src/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  if (logFile) mkdirSync(dirname(logFile), { recursive: true });
  const take = (d: unknown) => {
    out += String(d);
    if (logFile) appendFileSync(logFile, String(d));
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  return { child, output: () => out };
}

/**
 * Starts `gpu-worker/src/main.ts` as a child process on a free port (PORT=0) and resolves once `/readyz` is
 * 200. For tests, benchmarks and the local stack; the caller must `stop()` it.
 */
export async function startWorker(
  env: Record<string, string>,
  timeoutMs = 120_000,
  opts: { logFile?: string } = {},
): Promise<RunningWorker> {
  const { child, output } = spawnMain(env, opts.logFile);
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + timeoutMs;
  let url = "";
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${output()}`);
    const m = /listening on [^:]+:(\d+)/.exec(output());
    if (m && !url) url = `http://127.0.0.1:${m[1]}`;
    if (url) {
      const ok = await fetch(`${url}/readyz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) {
        const secret = env.GPU_SIGNING_SECRET ?? process.env.GPU_SIGNING_SECRET ?? "";
        return {
          url,
          child,
          logs: output,
          stop,
          async score(body, s = secret) {
            const headers = await signRequest(s, { method: "POST", origin: url, path: "/v1/score", body });
            return fetch(`${url}/v1/score`, {
              method: "POST",
              headers: { ...headers, "content-type": "application/json" },
              body,
            });
          },
        };
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`worker not ready within ${timeoutMs} ms:\n${output()}`);
}

/** Runs `main.ts` expecting it to refuse to start; resolves with its exit code and output. */
export async function runWorkerExpectingExit(
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  const { child, output } = spawnMain(env);
  const t = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  clearTimeout(t);
  return { code, out: output() };
}
