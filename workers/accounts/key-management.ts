import { ulid } from "ulid";
import { generateApiKey, type KeyMode } from "../../schema/api-key";
import { KEY_ID_PATTERN } from "../../schema/ids";
import { isScope, SCOPES } from "../../schema/scopes";
import { ApiError } from "../errors";
import { limitsFor } from "../limits/key-limits";
import type { AccountRow } from "../stores/accounts";
import { getApiKey, insertApiKey, type ManagedKey, revokeApiKey, updateApiKey } from "../stores/api-keys";
import type { Database } from "../stores/db";
import { orMaintenance } from "./unavailable";

/** The caps a key of `mode` may not exceed: the limiter's own rule (`limitsFor`), so the two cannot differ. */
export function accountCaps(account: Pick<AccountRow, "id" | "rpmLimit" | "tpmLimit">, mode: KeyMode) {
  return limitsFor({
    keyId: "",
    accountId: account.id,
    mode,
    accountLimits: { rpm: account.rpmLimit ?? undefined, tpm: account.tpmLimit ?? undefined },
  }).account;
}

/** Scopes narrowed from all three: a non-empty list of known scopes without repeats (422). */
export function parseScopes(v: unknown): string[] {
  if (!Array.isArray(v))
    throw new ApiError("invalid_type", { param: "scopes", message: "`scopes` must be an array." });
  if (v.length === 0 || v.some((s) => typeof s !== "string" || !isScope(s)) || new Set(v).size !== v.length)
    throw new ApiError("invalid_value", {
      param: "scopes",
      message: `\`scopes\` must be distinct items of ${SCOPES.join(", ")}.`,
    });
  return SCOPES.filter((s) => v.includes(s));
}

/** A key's own limit: null (the account's cap) or an integer from 1 up to the cap — above it is refused, not clamped. */
export function parseLimit(v: unknown, name: "rpm_limit" | "tpm_limit", cap: number): number | null {
  if (v === null) return null;
  if (typeof v !== "number")
    throw new ApiError("invalid_type", { param: name, message: `\`${name}\` must be a number.` });
  if (!Number.isInteger(v) || v < 1 || v > cap)
    throw new ApiError("invalid_value", {
      param: name,
      message: `\`${name}\` must be an integer from 1 to the account cap, ${cap}.`,
    });
  return v;
}

/** Optional expiry: an ISO date-time in the future. */
export function parseExpiry(v: unknown, now: number = Date.now()): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== "string")
    throw new ApiError("invalid_type", { param: "expires_at", message: "`expires_at` must be a string." });
  const t = Date.parse(v);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(t) || t <= now)
    throw new ApiError("invalid_value", {
      param: "expires_at",
      message: "`expires_at` must be a future date-time.",
    });
  return t;
}

/** What a new key is made of (parsed and checked against the account's caps). */
export interface NewKeySpec {
  name: string;
  mode: KeyMode;
  scopes: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  expiresAt: number | null;
}

/** Makes a key: the secret (returned once), its SHA-256 and display prefix stored. */
export async function createKey(db: Database, accountId: string, spec: NewKeySpec) {
  const { secret, hash, prefix } = await generateApiKey(spec.mode);
  const key = await orMaintenance("keys", () =>
    insertApiKey(db, { id: `key_${ulid()}`, accountId, prefix, ...spec }, hash),
  );
  return { key, secret };
}

const notFound = () => new ApiError("key_not_found", { message: "No key with that id in the account." });

/** One of the account's keys → 404 `key_not_found` (also for a malformed id). */
export async function findKey(db: Database, accountId: string, id: string): Promise<ManagedKey> {
  if (!KEY_ID_PATTERN.test(id)) throw notFound();
  const key = await orMaintenance("keys", () => getApiKey(db, accountId, id));
  if (!key) throw notFound();
  return key;
}

/** Saves a key's changed name / scopes / limits. */
export async function saveKey(db: Database, key: ManagedKey): Promise<ManagedKey> {
  const saved = await orMaintenance("keys", () => updateApiKey(db, key.accountId, key.id, key));
  if (!saved) throw notFound();
  return saved;
}

/** Revokes a key: every replica answers 401 `revoked_api_key` once its ≤1 s key cache expires. */
export async function revokeKey(db: Database, accountId: string, id: string): Promise<ManagedKey> {
  if (!KEY_ID_PATTERN.test(id)) throw notFound();
  const key = await orMaintenance("keys", () => revokeApiKey(db, accountId, id));
  if (!key) throw notFound();
  return key;
}

/** The console's JSON of a key (never the secret). */
export function keyJson(k: ManagedKey) {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return {
    object: "key" as const,
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    mode: k.mode,
    scopes: k.scopes,
    rpm_limit: k.rpmLimit,
    tpm_limit: k.tpmLimit,
    created: Math.floor(k.createdAt / 1000),
    expires_at: iso(k.expiresAt),
    revoked_at: iso(k.revokedAt),
  };
}
