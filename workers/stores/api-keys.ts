import type { KeyMode } from "../../schema/api-key";
import type { Database } from "./db";
import { parseTextArray } from "./keys";

/** A key as the console manages it (never the secret). */
export interface ManagedKey {
  id: string;
  accountId: string;
  name: string | null;
  prefix: string;
  mode: KeyMode;
  scopes: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

const COLUMNS =
  "id, account_id, name, prefix, mode, scopes, rpm_limit, tpm_limit, created_at, expires_at, revoked_at";
const ms = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)).getTime());
const int = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toKey(r: Record<string, unknown>): ManagedKey {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    name: r.name === null || r.name === undefined ? null : String(r.name),
    prefix: String(r.prefix),
    mode: r.mode === "test" ? "test" : "live",
    scopes: parseTextArray(r.scopes),
    rpmLimit: int(r.rpm_limit),
    tpmLimit: int(r.tpm_limit),
    createdAt: ms(r.created_at) ?? 0,
    expiresAt: ms(r.expires_at),
    revokedAt: ms(r.revoked_at),
  };
}

type Rows = Record<string, unknown>[];

/** Inserts a key (its secret only as SHA-256). */
export async function insertApiKey(
  db: Database,
  k: Omit<ManagedKey, "createdAt" | "revokedAt">,
  secretSha256: string,
): Promise<ManagedKey> {
  const rows = (await db.sql().query(
    `INSERT INTO api_keys (id, account_id, mode, secret_sha256, prefix, scopes, name, expires_at, rpm_limit, tpm_limit)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      k.id,
      k.accountId,
      k.mode,
      secretSha256,
      k.prefix,
      k.scopes,
      k.name,
      k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
      k.rpmLimit,
      k.tpmLimit,
    ],
  )) as Rows;
  return toKey(rows[0]!);
}

/** The account's keys, newest first. */
export async function listApiKeys(db: Database, accountId: string): Promise<ManagedKey[]> {
  const rows = (await db
    .sql()
    .query(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, [
      accountId,
    ])) as Rows;
  return rows.map(toKey);
}

/** One key of the account, or null. */
export async function getApiKey(db: Database, accountId: string, id: string): Promise<ManagedKey | null> {
  const rows = (await db
    .sql()
    .query(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 AND id = $2`, [accountId, id])) as Rows;
  return rows[0] ? toKey(rows[0]) : null;
}

/** Changes name / scopes / limits of one of the account's keys; null when it has no such key. */
export async function updateApiKey(
  db: Database,
  accountId: string,
  id: string,
  p: Pick<ManagedKey, "name" | "scopes" | "rpmLimit" | "tpmLimit">,
): Promise<ManagedKey | null> {
  const rows = (await db.sql().query(
    `UPDATE api_keys SET name = $3, scopes = $4, rpm_limit = $5, tpm_limit = $6
      WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, p.name, p.scopes, p.rpmLimit, p.tpmLimit],
  )) as Rows;
  return rows[0] ? toKey(rows[0]) : null;
}

/** Revokes one of the account's keys (an earlier revocation time stays); null when it has no such key. */
export async function revokeApiKey(db: Database, accountId: string, id: string): Promise<ManagedKey | null> {
  const rows = (await db.sql().query(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE account_id = $1 AND id = $2
     RETURNING ${COLUMNS}`,
    [accountId, id],
  )) as Rows;
  return rows[0] ? toKey(rows[0]) : null;
}
