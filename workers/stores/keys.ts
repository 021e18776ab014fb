import type { KeyMode } from "../../schema/api-key";
import { constantTimeEqual } from "../../schema/constant-time";
import { type DbEnv, getSql } from "./db";

/** An API key as the front door sees it: never the secret, only what later steps need. */
export interface KeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly mode: KeyMode;
  readonly prefix: string;
  readonly scopes: readonly string[];
  readonly name: string | null;
  /** Unix seconds. */
  readonly created: number;
  /** Epoch milliseconds, or null. */
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
  /** The key's own limits (null = the account's cap). */
  readonly rpmLimit: number | null;
  readonly tpmLimit: number | null;
  readonly account: {
    readonly status: "active" | "suspended";
    /** Account caps (null = the mode's default). */
    readonly rpmLimit: number | null;
    readonly tpmLimit: number | null;
    /** Opt-in content-logging retention in days (absent or null = off). */
    readonly contentLogDays?: number | null;
    /** Bumped whenever the account's calibrations change; 0 (or absent) when it never had one. */
    readonly calibrationsGeneration?: number;
    /** Bumped whenever the account's review rules change; 0 (or absent) when it never had one (issue 51). */
    readonly reviewRulesGeneration?: number;
  };
}

/** Looks keys up by the SHA-256 hex of their secret. */
export interface KeyStore {
  findByHash(secretSha256: string): Promise<KeyRecord | null>;
}

const toMs = (v: unknown): number | null =>
  v === null || v === undefined ? null : new Date(v as string).getTime();
const toInt = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Postgres key store over the Neon HTTP driver (`accounts` + `api_keys`, migrations/0001). */
export class PostgresKeyStore implements KeyStore {
  constructor(private readonly sql: ReturnType<typeof getSql>) {}

  async findByHash(secretSha256: string): Promise<KeyRecord | null> {
    const rows = (await this.sql.query(
      `SELECT k.id, k.account_id, k.mode, k.secret_sha256, k.prefix, k.scopes, k.name, k.created_at,
              k.expires_at, k.revoked_at, k.rpm_limit, k.tpm_limit,
              a.status AS account_status, a.rpm_limit AS account_rpm, a.tpm_limit AS account_tpm,
              a.content_log_days, a.calibrations_generation, a.review_rules_generation
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.secret_sha256 = $1`,
      [secretSha256],
    )) as Record<string, unknown>[];
    const r = rows[0];
    if (!r || !constantTimeEqual(String(r.secret_sha256), secretSha256)) return null;
    return {
      id: String(r.id),
      accountId: String(r.account_id),
      mode: r.mode === "test" ? "test" : "live",
      prefix: String(r.prefix),
      scopes: parseTextArray(r.scopes),
      name: r.name === null || r.name === undefined ? null : String(r.name),
      created: Math.floor((toMs(r.created_at) ?? 0) / 1000),
      expiresAt: toMs(r.expires_at),
      revokedAt: toMs(r.revoked_at),
      rpmLimit: toInt(r.rpm_limit),
      tpmLimit: toInt(r.tpm_limit),
      account: {
        status: r.account_status === "suspended" ? "suspended" : "active",
        rpmLimit: toInt(r.account_rpm),
        tpmLimit: toInt(r.account_tpm),
        contentLogDays: toInt(r.content_log_days),
        calibrationsGeneration: toInt(r.calibrations_generation) ?? 0,
        reviewRulesGeneration: toInt(r.review_rules_generation) ?? 0,
      },
    };
  }
}

/** text[] arrives as a JS array from Neon, or as a `{a,b}` literal through raw-text bridges. */
export function parseTextArray(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === "string" && v.startsWith("{") && v.endsWith("}")) {
    const inner = v.slice(1, -1);
    return inner === "" ? [] : inner.split(",").map((s) => s.replace(/^"(.*)"$/, "$1"));
  }
  return [];
}

/** How long a looked-up key may be reused in this isolate (spec: revocation within about a second). */
export const KEY_CACHE_TTL_MS = 1000;

/** In-isolate cache in front of a store; only found keys are cached, each for at most `ttlMs`. */
export class CachedKeyStore implements KeyStore {
  private readonly cache = new Map<string, { record: KeyRecord; at: number }>();

  constructor(
    private readonly inner: KeyStore,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async findByHash(secretSha256: string): Promise<KeyRecord | null> {
    const hit = this.cache.get(secretSha256);
    const t = this.now();
    if (hit && t - hit.at < this.ttlMs) return hit.record;
    const record = await this.inner.findByHash(secretSha256);
    if (record) {
      if (this.cache.size >= 10_000) this.cache.clear();
      this.cache.set(secretSha256, { record, at: t });
    } else this.cache.delete(secretSha256);
    return record;
  }
}

/** A store over fixed records (tests and local fixtures). */
export class MemoryKeyStore implements KeyStore {
  readonly records = new Map<string, KeyRecord>();

  async findByHash(secretSha256: string): Promise<KeyRecord | null> {
    return this.records.get(secretSha256) ?? null;
  }
}

/** The key store of an isolate: Postgres via Neon HTTP behind the ≤1 s cache (built once, in services). */
export function cachedPostgresKeyStore(env: DbEnv): KeyStore {
  return new CachedKeyStore(new PostgresKeyStore(getSql(env)));
}
