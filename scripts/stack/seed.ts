import { ulid } from "ulid";
import { generateApiKey, type KeyMode } from "../../schema/api-key";

/** Every key scope (spec: a new key gets all three unless narrowed). */
export const ALL_SCOPES = ["decide", "usage:read", "balance:read"] as const;

/** Runs one parameterised statement; the result is not read (works with a Node client or `getSql(env).query`). */
export type SeedQuery = (sql: string, params: unknown[]) => Promise<unknown>;

export interface SeedKeyOptions {
  mode: KeyMode;
  scopes?: readonly string[];
  name?: string;
  expiresAt?: Date;
  revokedAt?: Date;
  rpmLimit?: number;
  tpmLimit?: number;
}

export interface SeedAccountOptions {
  accountId?: string;
  email?: string;
  status?: "active" | "suspended";
  rpmLimit?: number;
  tpmLimit?: number;
  /** Default: one live and one test key with all scopes. */
  keys?: SeedKeyOptions[];
}

export interface SeededKey {
  id: string;
  /** The full secret (shown once; the database keeps only its SHA-256). */
  secret: string;
  hash: string;
  prefix: string;
  mode: KeyMode;
  scopes: string[];
}

export interface SeededAccount {
  accountId: string;
  keys: SeededKey[];
}

/** Inserts one account and its keys (rows in `accounts` / `api_keys`); returns the key secrets. */
export async function seedAccount(query: SeedQuery, opts: SeedAccountOptions = {}): Promise<SeededAccount> {
  const accountId = opts.accountId ?? `acc_${ulid()}`;
  await query("INSERT INTO accounts (id, email, status, rpm_limit, tpm_limit) VALUES ($1, $2, $3, $4, $5)", [
    accountId,
    opts.email ?? null,
    opts.status ?? "active",
    opts.rpmLimit ?? null,
    opts.tpmLimit ?? null,
  ]);
  const keys = await seedKeys(query, accountId, opts.keys ?? [{ mode: "live" }, { mode: "test" }]);
  return { accountId, keys };
}

/** Inserts API keys for an existing account; returns their secrets. */
export async function seedKeys(
  query: SeedQuery,
  accountId: string,
  specs: SeedKeyOptions[],
): Promise<SeededKey[]> {
  const keys: SeededKey[] = [];
  for (const k of specs) {
    const { secret, hash, prefix } = await generateApiKey(k.mode);
    const id = `key_${ulid()}`;
    const scopes = [...(k.scopes ?? ALL_SCOPES)];
    await query(
      `INSERT INTO api_keys (id, account_id, mode, secret_sha256, prefix, scopes, name, expires_at, revoked_at, rpm_limit, tpm_limit)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        id,
        accountId,
        k.mode,
        hash,
        prefix,
        scopes,
        k.name ?? null,
        k.expiresAt?.toISOString() ?? null,
        k.revokedAt?.toISOString() ?? null,
        k.rpmLimit ?? null,
        k.tpmLimit ?? null,
      ],
    );
    keys.push({ id, secret, hash, prefix, mode: k.mode, scopes });
  }
  return keys;
}
