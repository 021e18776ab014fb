import { registryEntries, verifyAdvert } from "../../schema/gpu-registry";
import {
  isAllowedWorkerUrl,
  READY_REQUEST_ID,
  SIGNATURE_HEADER,
  signRequest,
  TIMESTAMP_HEADER,
  verifyAnswer,
} from "../../schema/signing";
import { poolUrls } from "../clients/gpu-pool";
import { upstashRegistryRead } from "../clients/gpu-registry";
import type { Env } from "../env";

/** A worker of the pool as its signed `/readyz` describes it now. */
export interface PoolWorker {
  url: string;
  /** `/readyz` answered 200, signed by that worker. */
  ready: boolean;
  /** `/readyz`'s status, or null when it did not answer (refused, reset, timed out). */
  status: number | null;
  numericsClass: string | null;
  models: string[];
}

const PROBE_TIMEOUT_MS = 2_000;

/**
 * The pool's members: `GPU_POOL_URLS` when set, else the live adverts of the registry (as the edge reads them).
 * Null when the registry cannot be read: the pool is then unknown, not empty.
 */
export async function poolMembers(env: Env): Promise<string[] | null> {
  const urls = poolUrls(env.GPU_POOL_URLS);
  if (urls.length) return urls.filter(isAllowedWorkerUrl).map((u) => u.replace(/\/+$/, ""));
  if (!env.UPSTASH_REDIS_REST_URL || !env.UPSTASH_REDIS_REST_TOKEN || !env.GPU_SIGNING_SECRET) return [];
  const secret = env.GPU_SIGNING_SECRET;
  let raw: unknown;
  try {
    raw = await upstashRegistryRead(env)();
  } catch {
    return null;
  }
  const adverts = await Promise.all(registryEntries(raw).map(([f, v]) => verifyAdvert(secret, f, v)));
  const now = Date.now();
  return adverts.flatMap((a) => (a && a.expires_at > now ? [a.url] : []));
}

/** Asks one worker's `/readyz` (a signed call; a 200 must be signed by that worker to count). */
export async function probeWorker(url: string, secret: string): Promise<PoolWorker> {
  const down: PoolWorker = { url, ready: false, status: null, numericsClass: null, models: [] };
  try {
    const headers = await signRequest(secret, { method: "GET", origin: url, path: "/readyz", body: "" });
    const res = await fetch(`${url}/readyz`, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const text = await res.text();
    if (!res.ok) return { ...down, status: res.status };
    const verdict = await verifyAnswer(
      secret,
      { origin: url, requestId: READY_REQUEST_ID, body: text },
      res.headers.get(TIMESTAMP_HEADER),
      res.headers.get(SIGNATURE_HEADER),
    );
    if (!verdict.ok) return { ...down, status: res.status };
    const body = JSON.parse(text) as { numerics_class?: unknown; models?: unknown };
    return {
      url,
      ready: true,
      status: res.status,
      numericsClass: typeof body.numerics_class === "string" ? body.numerics_class : null,
      models: Array.isArray(body.models) ? body.models.filter((m): m is string => typeof m === "string") : [],
    };
  } catch {
    return down;
  }
}

/** Every member probed (in parallel); null when the members could not be listed. */
export async function poolWorkers(env: Env): Promise<PoolWorker[] | null> {
  const members = await poolMembers(env);
  if (members === null) return null;
  return Promise.all(members.map((u) => probeWorker(u, env.GPU_SIGNING_SECRET ?? "")));
}
