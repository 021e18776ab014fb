import { applyMigrations } from "../migrations";
import { type NeonBridge, startNeonBridge } from "./neon-bridge";
import { withNodeClient } from "./neon-node";
import { startPostgres } from "./postgres";
import { startRedis } from "./redis";
import { startUpstashBridge, type UpstashBridge } from "./upstash-bridge";

/** The data services the Worker needs, as the env values it reads. */
export interface ServicesEnv {
  DATABASE_URL: string;
  NEON_WS_PROXY: string;
  NEON_HTTP_ENDPOINT: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
}

export interface Services {
  env: ServicesEnv;
  /** The local Upstash bridge (undefined when UPSTASH_REDIS_REST_URL points elsewhere): stop()/start() it to simulate an outage. */
  upstash?: UpstashBridge;
  /** The local Redis-compatible server that runs (undefined when UPSTASH_REDIS_REST_URL points elsewhere). */
  redisServer?: { path: string; source: string };
  /** The Neon bridge (WS proxy + HTTP endpoint). */
  neon: NeonBridge;
  /** Migrations applied by this start. */
  applied: string[];
  stop(): Promise<void>;
}

export interface ServicesOptions {
  /** PGlite data dir (omit: in memory). Ignored when `databaseUrl`/DATABASE_URL is set. */
  pgDataDir?: string;
  /** Redis server persistence dir (omit: none). */
  redisDir?: string;
  /** Real Postgres to use instead of PGlite (default: process.env.DATABASE_URL). */
  databaseUrl?: string;
  /** Real Upstash to use instead of the local redis (default: process.env.UPSTASH_REDIS_REST_URL). */
  upstashUrl?: string;
  upstashToken?: string;
  /** Apply migrations (default true). */
  migrate?: boolean;
}

/** Starts Postgres (PGlite or external) + Neon bridge and redis + Upstash bridge, then applies migrations. */
export async function startServices(opts: ServicesOptions = {}): Promise<Services> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e) => console.error("stack: stop failed:", e));
    stops.length = 0;
  };
  try {
    const upstashUrl = opts.upstashUrl ?? process.env.UPSTASH_REDIS_REST_URL;
    const [pg, neon, redisPart] = await Promise.all([
      startPostgres({ dataDir: opts.pgDataDir, databaseUrl: opts.databaseUrl }).then((h) => {
        stops.push(h.stop);
        return h;
      }),
      startNeonBridge().then((h) => {
        stops.push(h.stop);
        return h;
      }),
      upstashUrl
        ? Promise.resolve({
            url: upstashUrl,
            token: opts.upstashToken ?? process.env.UPSTASH_REDIS_REST_TOKEN ?? "",
            bridge: undefined,
            server: undefined,
          })
        : startRedis({ dir: opts.redisDir }).then(async (r) => {
            stops.push(r.stop);
            const bridge = await startUpstashBridge({ redisUrl: r.url });
            stops.push(bridge.stop);
            return { url: bridge.url, token: bridge.token, bridge, server: r.server };
          }),
    ]);
    const applied =
      opts.migrate === false
        ? []
        : await withNodeClient(pg.url, { wsProxy: neon.wsProxy }, (q) => applyMigrations(q));
    return {
      env: {
        DATABASE_URL: pg.url,
        NEON_WS_PROXY: neon.wsProxy,
        NEON_HTTP_ENDPOINT: neon.httpEndpoint,
        UPSTASH_REDIS_REST_URL: redisPart.url,
        UPSTASH_REDIS_REST_TOKEN: redisPart.token,
      },
      upstash: redisPart.bridge,
      redisServer: redisPart.server,
      neon,
      applied,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
