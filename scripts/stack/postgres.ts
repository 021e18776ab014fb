import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { freePort } from "./free-port";

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

/** Starts PGlite on a free loopback port, unless a DATABASE_URL names a real server. */
export async function startPostgres(opts: PostgresOptions = {}): Promise<PostgresHandle> {
  const external = opts.databaseUrl ?? process.env.DATABASE_URL;
  if (external) return { url: external, embedded: false, stop: async () => {} };

  const fresh = !opts.dataDir || !existsSync(join(opts.dataDir, "PG_VERSION"));
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const db = await createPglite(opts.dataDir, fresh);
  const port = await freePort();
  const server = new PGLiteSocketServer({
    db: holdTurnUntilSync(db),
    port,
    host: "127.0.0.1",
    maxConnections: opts.maxConnections ?? 64,
  });
  await server.start();
  let stopped = false;
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
    embedded: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
    },
  };
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

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CACHE_DIR = join(ROOT, ".cache", "pglite");

/**
 * A new PGlite cluster costs an initdb (~10–20 s on a loaded 2-core machine); loading a snapshot of a
 * freshly initialised one takes ~2 s. The snapshot is taken once per PGlite version, before any
 * statement runs, and kept in `.cache/pglite/` (git-ignored).
 */
async function createPglite(dataDir: string | undefined, fresh: boolean): Promise<PGlite> {
  const base = dataDir ? { dataDir } : {};
  if (!fresh) return PGlite.create(base);
  const pkg = join(ROOT, "node_modules", "@electric-sql", "pglite", "package.json");
  const version = existsSync(pkg) ? (JSON.parse(readFileSync(pkg, "utf8")).version as string) : "unknown";
  const snapshot = join(CACHE_DIR, `initdb-${version}.tar`);
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
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${snapshot}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, snapshot);
  } catch {
    // the cache is an optimisation only
  }
  return db;
}
