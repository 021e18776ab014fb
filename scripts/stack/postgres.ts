import { mkdirSync } from "node:fs";
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

  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const db = await PGlite.create(opts.dataDir ? { dataDir: opts.dataDir } : {});
  const port = await freePort();
  const server = new PGLiteSocketServer({
    db,
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
