import { Redis } from "@upstash/redis";
import { type GpuAdvert, REGISTRY_KEY, registryEntries, verifyAdvert } from "../../schema/gpu-registry";
import { isAllowedWorkerUrl } from "../../schema/signing";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";

/** A worker the pool may route to: its base URL and, from the registry, its advert and when it lapses. */
export interface PoolMember {
  url: string;
  /** From the registry: what it serves and its load at the last heartbeat. Absent for a static URL. */
  advert?: GpuAdvert;
}

/** Where the pool's workers come from: a static list, or the registry (cached per isolate). */
export interface PoolSource {
  /** The workers to route among now; only awaits a read when nothing was ever read (an isolate's first call). */
  members(): readonly PoolMember[] | Promise<readonly PoolMember[]>;
}

/**
 * `GPU_POOL_URLS`: the static override. Only `https` URLs (or `http` on a loopback address) are called: a
 * plain-text hop would carry customer states in clear (the env check refuses such a list at the entry too).
 */
export function staticSource(urls: readonly string[]): PoolSource {
  const refused = urls.filter((u) => !isAllowedWorkerUrl(u));
  if (refused.length)
    logEvent("error", "gpu_pool_urls_refused", { count: refused.length, reason: "not https" });
  const members = urls.filter(isAllowedWorkerUrl).map((u) => ({ url: u.replace(/\/+$/, "") }));
  return { members: () => members };
}

/** Reads every field of the registry hash (HGETALL's reply: a flat array or an object; nothing checked). */
export type RegistryRead = () => Promise<unknown>;

export interface RegistryOptions {
  /** How old the isolate's copy may get before a call refreshes it in the background (`GPU_REGISTRY_REFRESH_MS`). */
  refreshMs?: number;
  /** Bound on a read (and on the wait of a call that has no live worker in memory). */
  readTimeoutMs?: number;
  now?: () => number;
}

export const DEFAULT_REFRESH_MS = 5_000;
/** After a failed read the next one is tried this much later, not on every call. */
const RETRY_MS = 1_000;

/**
 * The pool's workers from the registry in Upstash (`schema/gpu-registry.ts`), cached per isolate: a call reads
 * the copy in memory and, when it is older than `refreshMs`, starts one background refresh it does not wait
 * for (one HGETALL per isolate per `refreshMs` at most, none on an idle isolate). A call waits for a read only
 * when the copy holds no live worker (an isolate's first call, or after idling past every advert's expiry). Adverts with a bad signature are dropped; an advert past its `expires_at` is not
 * returned even from an old copy, so a worker whose heartbeat lapsed stops receiving calls at once.
 */
export class GpuRegistry implements PoolSource {
  private cache: { at: number; adverts: GpuAdvert[] } | null = null;
  private refreshing: { startedAt: number; done: Promise<void> } | null = null;
  private readonly refreshMs: number;
  private readonly readTimeoutMs: number;
  private readonly now: () => number;
  /** Registry reads made by this isolate (measured in tests and docs/deploy.md). */
  reads = 0;

  constructor(
    private readonly read: RegistryRead,
    private readonly secret: string,
    opts: RegistryOptions = {},
  ) {
    this.refreshMs = opts.refreshMs ?? DEFAULT_REFRESH_MS;
    this.readTimeoutMs = opts.readTimeoutMs ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  members(): readonly PoolMember[] | Promise<readonly PoolMember[]> {
    const now = this.now();
    const live = this.live(now);
    if (this.cache && now - this.cache.at < this.refreshMs) return live;
    if (live.length) {
      void this.refresh();
      return live;
    }
    // Nothing usable in memory (an isolate's first call, or one idle past every expiry): wait for one read.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((r) => {
      timer = setTimeout(r, this.readTimeoutMs);
    });
    return Promise.race([this.refresh(), bound]).then(() => {
      clearTimeout(timer);
      return this.live(this.now());
    });
  }

  private live(now: number): PoolMember[] {
    return (this.cache?.adverts ?? [])
      .filter((a) => a.expires_at > now)
      .map((a) => ({ url: a.url, advert: a }));
  }

  /**
   * One read of the registry, shared by concurrent callers; a failure keeps the last copy. A read started
   * more than `readTimeoutMs` ago is not shared (the request that started it may have ended, and Workers
   * drop a finished request's I/O).
   */
  refresh(): Promise<void> {
    const startedAt = this.now();
    if (this.refreshing && startedAt - this.refreshing.startedAt < this.readTimeoutMs)
      return this.refreshing.done;
    const done = this.load().catch((err: unknown) => {
      logEvent("error", "gpu_registry_read_failed", { error: errorText(err) });
      this.cache = { at: this.now() - this.refreshMs + RETRY_MS, adverts: this.cache?.adverts ?? [] };
    });
    this.refreshing = { startedAt, done };
    void done.finally(() => {
      if (this.refreshing?.done === done) this.refreshing = null;
    });
    return done;
  }

  private async load(): Promise<void> {
    this.reads++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), this.readTimeoutMs);
    });
    const raw = await Promise.race([this.read(), timeout]).finally(() => clearTimeout(timer));
    const entries = registryEntries(raw);
    const adverts = await Promise.all(entries.map(([field, v]) => verifyAdvert(this.secret, field, v)));
    const bad = adverts.filter((a) => a === null).length;
    if (bad) logEvent("error", "gpu_adverts_refused", { count: bad, reason: "bad signature or shape" });
    this.cache = { at: this.now(), adverts: adverts.filter((a): a is GpuAdvert => a !== null) };
  }
}

/** HGETALL of the registry through Upstash REST, values kept as the raw signed strings. */
export function upstashRegistryRead(env: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN">) {
  const redis = new Redis({
    url: env.UPSTASH_REDIS_REST_URL ?? "",
    token: env.UPSTASH_REDIS_REST_TOKEN ?? "",
    automaticDeserialization: false,
    enableTelemetry: false,
    enableAutoPipelining: false,
    retry: { retries: 1, backoff: () => 20 },
  });
  return (): Promise<unknown> => redis.hgetall(REGISTRY_KEY);
}

/**
 * The pool's source for an env: `GPU_POOL_URLS` when set (the static override), else the registry when Upstash
 * and the pool secret are configured, else no worker at all.
 */
export function poolSource(env: Env, urls: readonly string[]): PoolSource {
  if (urls.length) return staticSource(urls);
  if (!env.UPSTASH_REDIS_REST_URL || !env.UPSTASH_REDIS_REST_TOKEN || !env.GPU_SIGNING_SECRET)
    return staticSource([]);
  const refreshMs = env.GPU_REGISTRY_REFRESH_MS ? Number(env.GPU_REGISTRY_REFRESH_MS) : DEFAULT_REFRESH_MS;
  return new GpuRegistry(upstashRegistryRead(env), env.GPU_SIGNING_SECRET, { refreshMs });
}
