// The embedded PostgreSQL's own thread (started by ./postgres.ts): PGlite and its wire server run here, so the
// database's work (WebAssembly, synchronous while a statement runs) never stalls the event loop of the process
// that also serves the Redis bridge, the engine stand-in and a benchmark's client. Loaded as CommonJS through
// tsx's require hook, since Node 20 does not apply the ESM loader hooks inside worker threads.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parentPort, threadId, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** What ./postgres.ts hands the thread. */
export interface PgliteThreadData {
  root: string;
  dataDir?: string;
  port: number;
  maxConnections: number;
}

/** What the thread answers: once started, once stopped, or the error that kept it from starting. */
export type PgliteThreadMessage = { started: true } | { stopped: true } | { failed: string };

async function serve(data: PgliteThreadData): Promise<void> {
  const port = parentPort!;
  const fresh = !data.dataDir || !existsSync(join(data.dataDir, "PG_VERSION"));
  if (data.dataDir) mkdirSync(data.dataDir, { recursive: true });
  const db = await createPglite(data.root, data.dataDir, fresh);
  const server = new PGLiteSocketServer({
    db: holdTurnUntilSync(db),
    port: data.port,
    host: "127.0.0.1",
    maxConnections: data.maxConnections,
  });
  await server.start();
  port.once("message", async () => {
    await server.stop();
    await db.close();
    port.postMessage({ stopped: true } satisfies PgliteThreadMessage);
  });
  port.postMessage({ started: true } satisfies PgliteThreadMessage);
}

/** Extended-protocol messages that leave the session mid-sequence (Parse, Bind, Describe, Execute, Close, Flush). */
const MID_SEQUENCE = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);

/**
 * pglite-socket runs every wire connection on PGlite's one session and queues each protocol message on its
 * own; it keeps a connection's turn only inside an explicit transaction. Between one connection's Parse and
 * its Sync another connection's Parse would replace the unnamed statement, so results went to the wrong
 * connection (a valid key read as missing, "unnamed prepared statement does not exist"). The queue asks
 * `isInTransaction()` whom to serve next: answering true until the connection's Sync (or simple Query) has
 * run keeps its extended-protocol sequence whole. `exec` is the queue's ROLLBACK when a connection drops.
 */
function holdTurnUntilSync(db: PGlite): PGlite {
  let midSequence = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "isInTransaction") return () => midSequence || target.isInTransaction();
      if (prop === "execProtocolRawStream") {
        return async (message: Uint8Array, options: Parameters<PGlite["execProtocolRawStream"]>[1]) => {
          try {
            return await target.execProtocolRawStream(message, options);
          } finally {
            midSequence = MID_SEQUENCE.has(message[0] ?? 0);
          }
        };
      }
      if (prop === "exec") {
        return (...args: Parameters<PGlite["exec"]>) => {
          midSequence = false;
          return target.exec(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * A new PGlite cluster costs an initdb (~10–20 s on a loaded 2-core machine); loading a snapshot of a
 * freshly initialised one takes ~2 s. The snapshot is taken once per PGlite version, before any
 * statement runs, and kept in `.cache/pglite/` (git-ignored).
 */
async function createPglite(root: string, dataDir: string | undefined, fresh: boolean): Promise<PGlite> {
  const cacheDir = join(root, ".cache", "pglite");
  const base = dataDir ? { dataDir } : {};
  if (!fresh) return PGlite.create(base);
  const pkg = join(root, "node_modules", "@electric-sql", "pglite", "package.json");
  const version = existsSync(pkg) ? (JSON.parse(readFileSync(pkg, "utf8")).version as string) : "unknown";
  const snapshot = join(cacheDir, `initdb-${version}.tar`);
  if (existsSync(snapshot)) {
    try {
      return await PGlite.create({ ...base, loadDataDir: new Blob([readFileSync(snapshot)]) });
    } catch {
      // unreadable or truncated snapshot: fall through to a normal initdb and rewrite it
    }
  }
  const db = await PGlite.create(base);
  try {
    const dump = await db.dumpDataDir("none");
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${snapshot}.${process.pid}-${threadId}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, snapshot);
  } catch {
    // the cache is an optimisation only
  }
  return db;
}

serve(workerData as PgliteThreadData).catch((error) => {
  parentPort!.postMessage({
    failed: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
});
