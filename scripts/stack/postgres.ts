import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { freePort } from "./free-port";
import type { PgliteThreadData, PgliteThreadMessage } from "./pglite-thread";

/** A running Postgres (embedded PGlite served over TCP, or an external server named by DATABASE_URL). */
export interface PostgresHandle {
  /** Connection string for the Neon driver (its host:port is what the bridge dials). */
  url: string;
  /** True when this is PGlite started here; false for an external server. */
  embedded: boolean;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** PGlite data directory; omitted = in memory (tests). */
  dataDir?: string;
  /** Use this server instead of PGlite (default: process.env.DATABASE_URL). */
  databaseUrl?: string;
  /** Concurrent wire connections PGlite accepts (queries are serialised anyway). */
  maxConnections?: number;
}

/**
 * Starts PGlite on a free loopback port, in a thread of its own (./pglite-thread.ts), unless a DATABASE_URL
 * names a real server.
 */
export async function startPostgres(opts: PostgresOptions = {}): Promise<PostgresHandle> {
  const external = opts.databaseUrl ?? process.env.DATABASE_URL;
  if (external) return { url: external, embedded: false, stop: async () => {} };

  const port = await freePort();
  const data: PgliteThreadData = {
    root: ROOT,
    port,
    maxConnections: opts.maxConnections ?? 64,
    ...(opts.dataDir && { dataDir: resolve(opts.dataDir) }),
  };
  const thread = new Worker(THREAD_BOOT, { eval: true, workerData: data });
  const next = () =>
    new Promise<PgliteThreadMessage>((resolveMessage, reject) => {
      const onError = (error: Error) => {
        thread.off("message", onMessage);
        reject(error);
      };
      const onMessage = (message: PgliteThreadMessage) => {
        thread.off("error", onError);
        resolveMessage(message);
      };
      thread.once("message", onMessage).once("error", onError);
    });
  const started = await next();
  if ("failed" in started) {
    await thread.terminate();
    throw new Error(`PGlite did not start: ${started.failed}`);
  }
  let stopped: Promise<void> | undefined;
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
    embedded: true,
    stop() {
      stopped ??= (async () => {
        const done = next();
        thread.postMessage("stop");
        await done;
        await thread.terminate();
      })();
      return stopped;
    },
  };
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);
const THREAD_BOOT = `require(${JSON.stringify(require.resolve("tsx/cjs"))});
require(${JSON.stringify(fileURLToPath(new URL("./pglite-thread.ts", import.meta.url)))});`;
