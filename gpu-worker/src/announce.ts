import { Redis } from "@upstash/redis";
import {
  DEFAULT_HEARTBEAT_MS,
  type GpuAdvert,
  HEARTBEAT_MISSES,
  PRUNE_AFTER_MS,
  REGISTRY_KEY,
  registryEntries,
  signAdvert,
} from "../../schema/gpu-registry";
import { isAllowedWorkerUrl } from "../../schema/signing";
import { errorText, logEvent } from "./log";

/** What the worker is and carries at a heartbeat (null while not ready: nothing is announced). */
export type AdvertState = () => Omit<GpuAdvert, "v" | "url" | "announced_at" | "expires_at"> | null;

export interface AnnouncerConfig {
  /** The base URL the edge reaches this worker at (`SVC_ANNOUNCE_URL`). */
  url: string;
  redisUrl: string;
  redisToken: string;
  secret: string;
  /** Heartbeat (`SVC_ANNOUNCE_INTERVAL_MS`); the advert holds for `HEARTBEAT_MISSES` of them. */
  intervalMs: number;
}

/** The announcer's settings from the environment; null when `SVC_ANNOUNCE_URL` is unset (static pool). */
export function announcerConfig(env = process.env): AnnouncerConfig | null {
  const url = env.SVC_ANNOUNCE_URL?.replace(/\/+$/, "");
  if (!url) return null;
  if (!isAllowedWorkerUrl(url))
    throw new Error("SVC_ANNOUNCE_URL must be an https base URL (http only on a loopback address).");
  const redisUrl = env.UPSTASH_REDIS_REST_URL;
  const redisToken = env.UPSTASH_REDIS_REST_TOKEN;
  if (!redisUrl || !redisToken)
    throw new Error(
      "SVC_ANNOUNCE_URL needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (the registry).",
    );
  const raw = env.SVC_ANNOUNCE_INTERVAL_MS;
  const intervalMs = raw ? Number(raw) : DEFAULT_HEARTBEAT_MS;
  if (!Number.isInteger(intervalMs) || intervalMs < 100)
    throw new Error(`SVC_ANNOUNCE_INTERVAL_MS must be an integer ≥ 100, got ${raw}`);
  return { url, redisUrl, redisToken, secret: env.GPU_SIGNING_SECRET ?? "", intervalMs };
}

/**
 * Announces the worker in the registry every heartbeat (HSET of its signed advert, expiring after
 * `HEARTBEAT_MISSES` heartbeats) and withdraws it on `stop()` (HDEL). A failed heartbeat is logged and tried
 * again at the next one; the edge stops routing here once the last advert expires. About once a minute it
 * also deletes adverts that expired more than `PRUNE_AFTER_MS` ago (workers that were killed).
 */
export class Announcer {
  private readonly redis: Redis;
  private timer: ReturnType<typeof setInterval> | null = null;
  private beats = 0;
  private failing = false;

  constructor(
    private readonly cfg: AnnouncerConfig,
    private readonly state: AdvertState,
    private readonly now: () => number = Date.now,
  ) {
    this.redis = new Redis({
      url: cfg.redisUrl,
      token: cfg.redisToken,
      automaticDeserialization: false,
      enableTelemetry: false,
      retry: { retries: 1, backoff: () => 50 },
    });
  }

  /** One heartbeat: writes the advert (if ready), and now and then prunes long-expired ones. */
  async announce(): Promise<boolean> {
    const s = this.state();
    if (!s) return false;
    const at = this.now();
    const advert: GpuAdvert = {
      v: 1,
      url: this.cfg.url,
      ...s,
      announced_at: at,
      expires_at: at + this.cfg.intervalMs * HEARTBEAT_MISSES,
    };
    await this.redis.hset(REGISTRY_KEY, { [this.cfg.url]: await signAdvert(this.cfg.secret, advert) });
    if (this.beats++ % Math.max(1, Math.round(60_000 / this.cfg.intervalMs)) === 0) await this.prune(at);
    return true;
  }

  private async prune(at: number): Promise<void> {
    const stale = registryEntries(await this.redis.hgetall(REGISTRY_KEY))
      .filter(([, v]) => {
        const m = /"expires_at":(\d+)/.exec(v);
        return !m || Number(m[1]) < at - PRUNE_AFTER_MS;
      })
      .map(([k]) => k);
    if (stale.length) await this.redis.hdel(REGISTRY_KEY, ...stale);
  }

  /** Heartbeats from now on (the first at once). */
  start(): void {
    const beat = () =>
      this.announce().then(
        () => {
          if (this.failing) logEvent("info", "announcing_again", { registry: REGISTRY_KEY });
          this.failing = false;
        },
        (err: unknown) => {
          if (!this.failing) logEvent("error", "announce_failed", { error: errorText(err), retrying: true });
          this.failing = true;
        },
      );
    void beat();
    this.timer = setInterval(beat, this.cfg.intervalMs);
    this.timer.unref?.();
  }

  /** Stops the heartbeat and withdraws the advert, so the edge stops routing here at its next refresh. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.redis.hdel(REGISTRY_KEY, this.cfg.url).catch(() => undefined);
  }
}
