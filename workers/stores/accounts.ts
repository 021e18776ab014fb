import { ulid } from "ulid";
import type { Database } from "./db";

/** An account as the console sees it. */
export interface AccountRow {
  id: string;
  email: string | null;
  status: "active" | "suspended";
  /** Account caps (null = the mode's default). */
  rpmLimit: number | null;
  tpmLimit: number | null;
  /** Content-logging retention in days; null = off. */
  contentLogDays: number | null;
  /** Bumped whenever the account's calibrations change (0: never had one). */
  calibrationsGeneration: number;
  /** Bumped whenever the account's review rules change (0: never had one). */
  reviewRulesGeneration: number;
  createdAt: number;
}

const toInt = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toAccount(r: Record<string, unknown>): AccountRow {
  return {
    id: String(r.id),
    email: r.email === null || r.email === undefined ? null : String(r.email),
    status: r.status === "suspended" ? "suspended" : "active",
    rpmLimit: toInt(r.rpm_limit),
    tpmLimit: toInt(r.tpm_limit),
    contentLogDays: toInt(r.content_log_days),
    calibrationsGeneration: toInt(r.calibrations_generation) ?? 0,
    reviewRulesGeneration: toInt(r.review_rules_generation) ?? 0,
    createdAt: new Date(String(r.created_at)).getTime(),
  };
}

const COLUMNS =
  "id, email, status, rpm_limit, tpm_limit, content_log_days, calibrations_generation, review_rules_generation, created_at";

/** The account of a (lower-cased) address, created (`acc_` + ULID) when none has it. */
export async function findOrCreateAccountByEmail(
  db: Database,
  email: string,
): Promise<{ account: AccountRow; created: boolean }> {
  const sql = db.sql();
  const inserted = (await sql.query(
    `INSERT INTO accounts (id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [`acc_${ulid()}`, email],
  )) as Record<string, unknown>[];
  if (inserted[0]) return { account: toAccount(inserted[0]), created: true };
  const rows = (await sql.query(`SELECT ${COLUMNS} FROM accounts WHERE lower(email) = $1`, [
    email,
  ])) as Record<string, unknown>[];
  if (!rows[0]) throw new Error("account neither inserted nor found");
  return { account: toAccount(rows[0]), created: false };
}

/** True when an account has this (lower-cased) address. */
export async function accountHasEmail(db: Database, email: string): Promise<boolean> {
  const rows = (await db
    .sql()
    .query("SELECT 1 FROM accounts WHERE lower(email) = $1 LIMIT 1", [email])) as unknown[];
  return rows.length > 0;
}

/** One account by id, or null. */
export async function getAccount(db: Database, id: string): Promise<AccountRow | null> {
  const rows = (await db.sql().query(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id])) as Record<
    string,
    unknown
  >[];
  return rows[0] ? toAccount(rows[0]) : null;
}

/** Sets an account's status; false when no such account. */
export async function setAccountStatus(
  db: Database,
  id: string,
  status: "active" | "suspended",
): Promise<boolean> {
  const rows = (await db
    .sql()
    .query("UPDATE accounts SET status = $2 WHERE id = $1 RETURNING id", [id, status])) as unknown[];
  return rows.length === 1;
}

/** Sets (or, with null, turns off) content logging. */
export async function setContentLogDays(
  db: Database,
  id: string,
  days: number | null,
): Promise<AccountRow | null> {
  const rows = (await db
    .sql()
    .query(`UPDATE accounts SET content_log_days = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [
      id,
      days,
    ])) as Record<string, unknown>[];
  return rows[0] ? toAccount(rows[0]) : null;
}
