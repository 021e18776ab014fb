/**
 * The GPU pool's registry (docs/deploy.md, "The GPU pool"): each worker announces itself in one Upstash hash,
 * one field per worker (its base URL), the value a signed advert. The edge routes from it; the worker
 * (`gpu-worker/src/announce.ts`) writes it. Web Crypto only, so the Worker and Node share this file.
 */
import { z } from "zod";
import { constantTimeEqual } from "./constant-time";
import { hmacHex, isAllowedWorkerUrl } from "./signing";

/** The Redis hash holding every worker's advert (field = the worker's base URL). */
export const REGISTRY_KEY = "gpu:registry:v1";
/** Default heartbeat of a worker; an advert expires after `HEARTBEAT_MISSES` missed heartbeats. */
export const DEFAULT_HEARTBEAT_MS = 5_000;
export const HEARTBEAT_MISSES = 3;
/** An advert expired this long ago is deleted by the next worker that announces (housekeeping only). */
export const PRUNE_AFTER_MS = 10 * 60_000;

/** What a worker announces: where it is, what it serves (exact versions × numerics class) and its load. */
export const GpuAdvert = z.object({
  v: z.literal(1),
  /** Base URL the edge calls (`SVC_ANNOUNCE_URL`), no trailing slash: `https`, or `http` on loopback only. */
  url: z.url({ protocol: /^https?$/ }).refine(isAllowedWorkerUrl, "https, or http on a loopback address"),
  /** The numerics class the versions are computed in (`/readyz`), or null for a worker that reports none. */
  numerics_class: z.string().nullable(),
  /** Exact versions served (`/readyz`). */
  models: z.array(z.string()),
  /** Requests holding a sequence or waiting for one at announce time (`svc_engine_in_flight`). */
  in_flight: z.number().int().nonnegative(),
  /** Requests waiting for a sequence (`svc_engine_queue_depth`): the autoscaler's metric too. */
  queue_depth: z.number().int().nonnegative(),
  /** Sequences (requests evaluated at once) and queue bound: the worker's capacity. */
  sequences: z.number().int().positive(),
  queue_max: z.number().int().nonnegative(),
  /**
   * Optional: measured speed in billable tokens per second (issue 30 will measure it). Absent: unknown, and
   * the edge orders workers by load alone.
   */
  tokens_per_second: z.number().positive().optional(),
  /** When this advert was written and until when it holds (ms since epoch); past it the edge ignores it. */
  announced_at: z.number().int(),
  expires_at: z.number().int(),
});
export type GpuAdvert = z.infer<typeof GpuAdvert>;

const DOMAIN = "svc-gpu-advert-v1";

/** The hash field's value: `<hex HMAC-SHA-256 of "svc-gpu-advert-v1\n" + json>.<json>`, keyed by the pool secret. */
export async function signAdvert(secret: string, advert: GpuAdvert): Promise<string> {
  const json = JSON.stringify(advert);
  return `${await hmacHex(secret, `${DOMAIN}\n${json}`)}.${json}`;
}

/**
 * The advert in a hash value when its signature holds for `secret`, it parses, and it names the field it is
 * stored under (an advert copied to another field is refused); else null. Expiry is the caller's to check.
 */
export async function verifyAdvert(secret: string, field: string, value: string): Promise<GpuAdvert | null> {
  const dot = value.indexOf(".");
  if (dot !== 64) return null;
  const json = value.slice(dot + 1);
  if (!constantTimeEqual(value.slice(0, dot), await hmacHex(secret, `${DOMAIN}\n${json}`))) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  const advert = GpuAdvert.safeParse(parsed);
  return advert.success && advert.data.url === field ? advert.data : null;
}

/** The registry hash as [field, value] pairs from HGETALL's reply (a flat array raw, or an object). */
export function registryEntries(raw: unknown): [string, string][] {
  if (Array.isArray(raw)) {
    const out: [string, string][] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), String(raw[i + 1])]);
    return out;
  }
  return raw && typeof raw === "object" ? Object.entries(raw).map(([k, v]) => [k, String(v)]) : [];
}
