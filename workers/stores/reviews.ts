import { type Database, msOrNull } from "./db";
import type { ReviewScope } from "./review-rules";

/** Where a kept item stands. */
export type ReviewStatusValue = "pending" | "labelled" | "skipped";

/** A kept item (times in ms since epoch; `question`, `state`, `answer`, `label` as JSON text, order kept). */
export interface ReviewRow {
  id: string;
  ruleId: string;
  accountId: string;
  requestId: string;
  model: string;
  questionId: string;
  question: string;
  state: string;
  answer: string;
  status: ReviewStatusValue;
  label: string | null;
  claimedBy: string | null;
  claimedUntil: number | null;
  createdAt: number;
  reviewedAt: number | null;
  expiresAt: number;
}

function toReview(r: Record<string, unknown>): ReviewRow {
  return {
    id: String(r.id),
    ruleId: String(r.rule_id),
    accountId: String(r.account_id),
    requestId: String(r.request_id),
    model: String(r.model),
    questionId: String(r.question_id),
    question: String(r.question),
    state: String(r.state),
    answer: String(r.answer),
    status: String(r.status) as ReviewStatusValue,
    label: (r.label as string | null) ?? null,
    claimedBy: (r.claimed_by as string | null) ?? null,
    claimedUntil: msOrNull(r.claimed_until),
    createdAt: msOrNull(r.created_at)!,
    reviewedAt: msOrNull(r.reviewed_at),
    expiresAt: msOrNull(r.expires_at)!,
  };
}

/** A new kept item. */
export type NewReview = Omit<
  ReviewRow,
  "status" | "label" | "claimedBy" | "claimedUntil" | "createdAt" | "reviewedAt"
> & { bytes: number };

/** Caps a capture respects: items kept per rule, and the account's stored bytes (evaluations + reviews). */
export interface ReviewCaps {
  perRule: number;
  storedBytes: number;
}

/**
 * Keeps `items` (one decide's, each of its rule), each only while its rule exists, has kept fewer than
 * `caps.perRule` and the account's live evaluations and kept items stay within `caps.storedBytes`; how many
 * were kept. The rule's `kept` counter moves in the same statement.
 */
export async function insertReviews(
  db: Database,
  items: readonly NewReview[],
  caps: ReviewCaps,
): Promise<number> {
  let kept = 0;
  for (const v of items) {
    const rows = (await db.sql().query(
      `WITH r AS (
         UPDATE review_rules SET kept = kept + 1
          WHERE id = $2 AND account_id = $3 AND kept < $12
            AND (SELECT coalesce(sum(bytes), 0) FROM evaluations WHERE account_id = $3 AND expires_at > now())
              + (SELECT coalesce(sum(bytes), 0) FROM reviews WHERE account_id = $3 AND expires_at > now())
              + $11::bigint <= $13::bigint
          RETURNING id)
       INSERT INTO reviews (id, rule_id, account_id, request_id, model, question_id, question, state, answer,
                            expires_at, bytes)
       SELECT $1, r.id, $3, $4, $5, $6, $7, $8, $9, $10, $11 FROM r
       RETURNING id`,
      [
        v.id,
        v.ruleId,
        v.accountId,
        v.requestId,
        v.model,
        v.questionId,
        v.question,
        v.state,
        v.answer,
        new Date(v.expiresAt).toISOString(),
        v.bytes,
        caps.perRule,
        caps.storedBytes,
      ],
    )) as unknown[];
    kept += rows.length;
  }
  return kept;
}

/** A list's filters: the rule, the status, the question's fingerprint. */
export interface ReviewFilters {
  ruleId: string | null;
  status: ReviewStatusValue | null;
  fingerprint: string | null;
}

const SCOPED = `v.account_id = $1 AND v.expires_at > now() AND ($2::text IS NULL OR r.mode = $2)`;

/** Newest first, `limit` per page after `startingAfter` (an id), of the modes `sees`, filtered. */
export async function listReviews(
  db: Database,
  accountId: string,
  sees: ReviewScope,
  f: ReviewFilters,
  limit: number,
  startingAfter: string | null,
): Promise<{ data: ReviewRow[]; hasMore: boolean }> {
  const rows = (await db.sql().query(
    `SELECT v.* FROM reviews v JOIN review_rules r ON r.id = v.rule_id
      WHERE ${SCOPED} AND ($3::text IS NULL OR v.rule_id = $3) AND ($4::text IS NULL OR v.status = $4)
        AND ($5::text IS NULL OR r.fingerprint = $5) AND ($6::text IS NULL OR v.id < $6)
      ORDER BY v.id DESC LIMIT $7`,
    [accountId, sees, f.ruleId, f.status, f.fingerprint, startingAfter, limit + 1],
  )) as Record<string, unknown>[];
  return { data: rows.slice(0, limit).map(toReview), hasMore: rows.length > limit };
}

/** One kept item of the account of the modes `sees`. */
export async function findReview(
  db: Database,
  accountId: string,
  id: string,
  sees: ReviewScope,
): Promise<ReviewRow | null> {
  const rows = (await db
    .sql()
    .query(
      `SELECT v.* FROM reviews v JOIN review_rules r ON r.id = v.rule_id WHERE ${SCOPED} AND v.id = $3`,
      [accountId, sees, id],
    )) as Record<string, unknown>[];
  return rows[0] ? toReview(rows[0]) : null;
}

/**
 * Labels (`label` JSON text) or skips (`label` null) a pending item: one conditional update, so of two reviewers
 * at once exactly one gets the row; null when it was not pending (or not found).
 */
export async function reviewItem(
  db: Database,
  accountId: string,
  id: string,
  sees: ReviewScope,
  label: string | null,
): Promise<ReviewRow | null> {
  const rows = (await db.sql().query(
    `UPDATE reviews v SET status = $4, label = $5, reviewed_at = now(), claimed_by = NULL, claimed_until = NULL
       FROM review_rules r
      WHERE r.id = v.rule_id AND ${SCOPED} AND v.id = $3 AND v.status = 'pending'
      RETURNING v.*`,
    [accountId, sees, id, label === null ? "skipped" : "labelled", label],
  )) as Record<string, unknown>[];
  return rows[0] ? toReview(rows[0]) : null;
}

/**
 * Claims the rule's oldest pending item no other reviewer holds (their claim unexpired) for `seconds`, skipping rows
 * another transaction has locked; the caller's own unexpired claim is handed back first. Null when none is left.
 */
export async function claimNextReview(
  db: Database,
  ruleId: string,
  who: string,
  seconds: number,
): Promise<ReviewRow | null> {
  const rows = (await db.sql().query(
    `UPDATE reviews SET claimed_by = $2, claimed_until = now() + make_interval(secs => $3)
      WHERE id = (SELECT id FROM reviews
                   WHERE rule_id = $1 AND status = 'pending' AND expires_at > now()
                     AND (claimed_until IS NULL OR claimed_until < now() OR claimed_by = $2)
                   ORDER BY (claimed_by = $2 AND claimed_until >= now()) IS TRUE DESC, id
                   LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [ruleId, who, seconds],
  )) as Record<string, unknown>[];
  return rows[0] ? toReview(rows[0]) : null;
}

/** The rule's labelled items, newest first, at most `limit`: what the loop's evaluation is made of. */
export async function labelledReviews(db: Database, ruleId: string, limit: number): Promise<ReviewRow[]> {
  const rows = (await db.sql().query(
    `SELECT * FROM reviews WHERE rule_id = $1 AND status = 'labelled' AND expires_at > now()
      ORDER BY id DESC LIMIT $2`,
    [ruleId, limit],
  )) as Record<string, unknown>[];
  return rows.map(toReview);
}

/** Deletes kept items past their 30 days (the cron sweep); how many. */
export async function deleteExpiredReviews(db: Database): Promise<number> {
  const rows = (await db
    .sql()
    .query("DELETE FROM reviews WHERE expires_at <= now() RETURNING id")) as unknown[];
  return rows.length;
}
