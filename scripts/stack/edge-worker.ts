import { appendFileSync, createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { buildConsole } from "../build-console";
import { startClientAddressFront } from "./client-address";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The edge Worker running in workerd (Miniflare) with its Durable Objects. */
export interface EdgeWorker {
  url: string;
  stop(): Promise<void>;
}

export interface EdgeWorkerOptions {
  bindings: Record<string, string>;
  /** 0 = a free port. */
  port?: number;
  /** Durable Object storage directory; omit for in-memory. */
  persistDir?: string;
  /** Entry module (default `workers/index.ts`). */
  entry?: string;
  /**
   * Appends every line the Worker logs to this file, one JSON object a line (`npm start`:
   * `<data dir>/logs/edge.jsonl`); default `SVC_EDGE_LOG_FILE` (the test tiers' run log), else the terminal.
   */
  logFile?: string;
  /**
   * How lines reach `logFile`: `sync` (default: each appended before the next is handled, so a test reads every
   * line of a request it has answered), `buffered` (the same lines through a write stream), or `piped` (the
   * benches: workerd's output bytes go to the file as they come, through no JavaScript per line; a line the
   * Worker printed without `logEvent` stays as printed, not wrapped). The benches' one Node process also serves
   * the stand-ins a decide calls, so per-line work in it sits on the measured path, where production has none:
   * Workers Logs collects a Worker's console lines outside the request (docs/benchmarks.md, issue 53).
   */
  logWrites?: "sync" | "buffered" | "piped";
  /** Opens workerd's inspector (Chrome DevTools protocol) on this port: the CPU profile bench (bench/edge-cpu.ts). */
  inspectorPort?: number;
}

/** Event name of a line the Worker printed without `logEvent` (workerd's own, or a stray console call). */
export const RUNTIME_OUTPUT_EVENT = "runtime_output";

/**
 * A Miniflare structured-log handler appending to `file`: the Worker's `logEvent` lines as they are, anything
 * else wrapped as `runtime_output` with its level, so the file stays one JSON object a line.
 */
export function appendWorkerLogs(
  file: string,
  writes: "sync" | "buffered" = "sync",
): ((log: { timestamp: number; level: string; message: string }) => void) & { close(): Promise<void> } {
  mkdirSync(dirname(file), { recursive: true });
  const stream = writes === "buffered" ? createWriteStream(file, { flags: "a" }) : null;
  const write = stream ? (text: string) => stream.write(text) : (text: string) => appendFileSync(file, text);
  const close = () => new Promise<void>((done) => (stream ? stream.end(done) : done()));
  return Object.assign(
    function appendWorkerLog({
      timestamp,
      level,
      message,
    }: {
      timestamp: number;
      level: string;
      message: string;
    }) {
      const line = message.trimEnd();
      const own = line.startsWith("{") && !line.includes("\n") && isJsonObject(line);
      const out = own
        ? line
        : JSON.stringify({
            level: level === "log" ? "info" : level,
            event: RUNTIME_OUTPUT_EVENT,
            at: new Date(timestamp).toISOString(),
            message: line,
          });
      write(`${out}\n`);
    },
    { close },
  );
}

/** workerd's stdout and stderr appended to `file` as they come (Miniflare's `handleRuntimeStdio`). */
function pipeWorkerOutput(file: string): {
  handle: (stdout: Readable, stderr: Readable) => void;
  close(): Promise<void>;
} {
  mkdirSync(dirname(file), { recursive: true });
  const out = createWriteStream(file, { flags: "a" });
  return {
    handle(stdout, stderr) {
      stdout.pipe(out, { end: false });
      stderr.pipe(out, { end: false });
    },
    close: () => new Promise<void>((done) => out.end(done)),
  };
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** esbuild-bundles the Worker the way wrangler does (ESM, workerd conditions, node: builtins left to nodejs_compat). */
export async function bundleWorker(entry = join(ROOT, "workers/index.ts")): Promise<string> {
  await buildConsole(); // the console's pages are a module of the Worker
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser", "import", "module", "default"],
    mainFields: ["browser", "module", "main"],
    external: ["cloudflare:*", "node:*", ...builtinModules],
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** Reads compatibility settings and Durable Object bindings from wrangler.toml (one source for both). */
export function wranglerSettings(): {
  compatibilityDate: string;
  compatibilityFlags: string[];
  durableObjects: Record<string, { className: string; useSQLite: true }>;
  analyticsEngineDatasets: Record<string, { dataset: string }>;
  r2Buckets: string[];
} {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const durableObjects: Record<string, { className: string; useSQLite: true }> = {};
  for (const block of toml.split(/^\[\[durable_objects\.bindings\]\]\s*$/m).slice(1)) {
    const name = /^name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    const className = /^class_name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    if (name && className) durableObjects[name] = { className, useSQLite: true };
  }
  const analyticsEngineDatasets: Record<string, { dataset: string }> = {};
  for (const block of toml.split(/^\[\[analytics_engine_datasets\]\]\s*$/m).slice(1)) {
    const name = /^binding\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    const dataset = /^dataset\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    if (name && dataset) analyticsEngineDatasets[name] = { dataset };
  }
  const r2Buckets = [...toml.matchAll(/^\[\[r2_buckets\]\]\s*\nbinding\s*=\s*"([^"]+)"/gm)].map((m) => m[1]!);
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1] ?? "2026-04-01";
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  return {
    compatibilityDate: date,
    compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
    durableObjects,
    analyticsEngineDatasets,
    r2Buckets,
  };
}

/**
 * Bundles and starts the Worker on 127.0.0.1, behind a front that sets `cf-connecting-ip` from the socket (a
 * client-sent one is dropped, as Cloudflare's edge does): the address the limits see is the connection's.
 */
export async function startEdgeWorker(opts: EdgeWorkerOptions): Promise<EdgeWorker> {
  const script = await bundleWorker(opts.entry);
  const logFile = opts.logFile ?? process.env.SVC_EDGE_LOG_FILE;
  const logs = logFile && opts.logWrites !== "piped" ? appendWorkerLogs(logFile, opts.logWrites) : null;
  const piped = logFile && opts.logWrites === "piped" ? pipeWorkerOutput(logFile) : null;
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "index.js", contents: script }],
    ...wranglerSettings(),
    durableObjectsPersist: opts.persistDir ?? false,
    // R2 (batch inputs and results) beside the Durable Objects, under the data folder.
    r2Persist: opts.persistDir ? `${opts.persistDir}/r2` : false,
    bindings: opts.bindings,
    host: "127.0.0.1",
    port: 0,
    ...(opts.inspectorPort !== undefined && { inspectorPort: opts.inspectorPort }),
    ...(logs && { handleStructuredLogs: logs }),
    ...(piped && { structuredWorkerdLogs: false, handleRuntimeStdio: piped.handle }),
  });
  const inner = (await mf.ready).toString().replace(/\/$/, "");
  const front = await startClientAddressFront(inner, { host: "127.0.0.1", port: opts.port ?? 0 }).catch(
    async (error: unknown) => {
      await mf.dispose();
      throw error;
    },
  );
  return {
    url: front.url,
    stop: async () => {
      await front.close();
      await mf.dispose();
      await logs?.close();
      await piped?.close();
    },
  };
}
