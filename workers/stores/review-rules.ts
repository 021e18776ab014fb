import { type Database, msOrNull } from "./db";

/** Whose decides a rule keeps: its creator's mode (a test key's rule keeps only test decides). */
export type ReviewMode = "live" | "test";
/** What a caller sees: one mode's rules and items (an API key's), or all (a console session's: null). */
export type ReviewScope = ReviewMode | null;
/** Where a rule's loop stands (POST /v1/review-rules/{id}/evaluations). */
export type LoopStatus = "none" | "evaluating" | "fitting" | "fitted" | "applied" | "failed";

/** A review rule (times in ms since epoch; `question` JSON text with its order kept). */
export interface ReviewRuleRow {
  id: string;
  accountId: string;
  mode: ReviewMode;
  question: string;
  fingerprint: string;
  model: string | null;
  abstained: boolean;
  belowConfidence: number | null;
  sampleRate: number;
  autoApply: boolean;
  kept: number;
  loopEvaluation: string | null;
  loopCalibration: string | null;
  loopStatus: LoopStatus;
  /** JSON text `{code, message}` of a failed loop. */
  loopError: string | null;
  createdAt: number;
  /** Items by status now (absent on rows read for the decide path). */
  counts?: { pending: number; labelled: number; skipped: number };
}

const bool = (v: unknown) => v === true || v === "t" || v === "true";
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toRule(r: Record<string, unknown>): ReviewRuleRow {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    mode: r.mode === "test" ? "test" : "live",
    question: String(r.question),
    fingerprint: String(r.fingerprint),
    model: r.model === null || r.model === undefined ? null : String(r.model),
    abstained: bool(r.abstained),
    belowConfidence: numOrNull(r.below_confidence),
    sampleRate: Number(r.sample_rate),
    autoApply: bool(r.auto_apply),
    kept: Number(r.kept),
    loopEvaluation: (r.loop_evaluation as string | null) ?? null,
    loopCalibration: (r.loop_calibration as string | null) ?? null,
    loopStatus: String(r.loop_status) as LoopStatus,
    loopError: (r.loop_error as string | null) ?? null,
    createdAt: msOrNull(r.created_at)!,
    ...(r.pending !== undefined && {
      counts: { pending: Number(r.pending), labelled: Number(r.labelled), skipped: Number(r.skipped) },
    }),
  };
}

/** The columns of an API row: the rule and its items by status. */
const WITH_COUNTS = `r.*,
  (SELECT count(*) FROM reviews v WHERE v.rule_id = r.id AND v.status = 'pending' AND v.expires_at > now()) AS pending,
  (SELECT count(*) FROM reviews v WHERE v.rule_id = r.id AND v.status = 'labelled' AND v.expires_at > now()) AS labelled,
  (SELECT count(*) FROM reviews v WHERE v.rule_id = r.id AND v.status = 'skipped' AND v.expires_at > now()) AS skipped`;

/** A new rule's fields. */
export type NewReviewRule = Omit<
  ReviewRuleRow,
  "kept" | "loopEvaluation" | "loopCalibration" | "loopStatus" | "loopError" | "createdAt" | "counts"
>;

/**
 * Inserts the rule unless the account has `cap` rules (null then, nothing changed), and bumps the account's
 * review-rules generation (what the decide path reads with the key). The account's row is locked first, so
 * parallel creations count one after the other.
 */
export async function insertReviewRule(
  db: Database,
  r: NewReviewRule,
  cap: number,
): Promise<ReviewRuleRow | null> {
  const sql = db.sql();
  const results = await sql.transaction([
    sql.query(
      "UPDATE accounts SET review_rules_generation = review_rules_generation + 1 WHERE id = $1 RETURNING id",
      [r.accountId],
    ),
    sql.query(
      `INSERT INTO review_rules (id, account_id, mode, question, fingerprint, model, abstained, below_confidence,
                                 sample_rate, auto_apply)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
        WHERE (SELECT count(*) FROM review_rules WHERE account_id = $2) < $11
       RETURNING *, 0 AS pending, 0 AS labelled, 0 AS skipped`,
      [
        r.id,
        r.accountId,
        r.mode,
        r.question,
        r.fingerprint,
        r.model,
        r.abstained,
        r.belowConfidence,
        r.sampleRate,
        r.autoApply,
        cap,
      ],
    ),
  ]);
  const row = (results[1] as Record<string, unknown>[])[0];
  return row ? toRule(row) : null;
}

/** Newest first, `limit` per page after `startingAfter` (an id), of the modes `sees`, with their counts. */
export async function listReviewRules(
  db: Database,
  accountId: string,
  sees: ReviewScope,
  limit: number,
  startingAfter: string | null,
): Promise<{ data: ReviewRuleRow[]; hasMore: boolean }> {
  const rows = (await db.sql().query(
    `SELECT ${WITH_COUNTS} FROM review_rules r
      WHERE r.account_id = $1 AND ($2::text IS NULL OR r.id < $2) AND ($4::text IS NULL OR r.mode = $4)
      ORDER BY r.id DESC LIMIT $3`,
    [accountId, startingAfter, limit + 1, sees],
  )) as Record<string, unknown>[];
  return { data: rows.slice(0, limit).map(toRule), hasMore: rows.length > limit };
}

/** One rule of the account of the modes `sees`, with its counts. */
export async function findReviewRule(
  db: Database,
  accountId: string,
  id: string,
  sees: ReviewScope,
): Promise<ReviewRuleRow | null> {
  const rows = (await db.sql().query(
    `SELECT ${WITH_COUNTS} FROM review_rules r
      WHERE r.id = $1 AND r.account_id = $2 AND ($3::text IS NULL OR r.mode = $3)`,
    [id, accountId, sees],
  )) as Record<string, unknown>[];
  return rows[0] ? toRule(rows[0]) : null;
}

/** Deletes the rule and its kept items (cascade), bumping the generation; false when not found. */
export async function deleteReviewRule(
  db: Database,
  accountId: string,
  id: string,
  sees: ReviewScope,
): Promise<boolean> {
  const sql = db.sql();
  const mine = "id = $2 AND account_id = $1 AND ($3::text IS NULL OR mode = $3)";
  const results = await sql.transaction([
    sql.query(
      `UPDATE accounts SET review_rules_generation = review_rules_generation + 1
        WHERE id = $1 AND EXISTS (SELECT 1 FROM review_rules WHERE ${mine})`,
      [accountId, id, sees],
    ),
    sql.query(`DELETE FROM review_rules WHERE ${mine} RETURNING id`, [accountId, id, sees]),
  ]);
  return (results[1] as unknown[]).length > 0;
}

/** Every rule of the account, both modes, without counts (at most the cap): what its decides match against. */
export async function accountReviewRules(db: Database, accountId: string): Promise<ReviewRuleRow[]> {
  const rows = (await db
    .sql()
    .query("SELECT * FROM review_rules WHERE account_id = $1", [accountId])) as Record<string, unknown>[];
  return rows.map(toRule);
}

/** Records the loop's state on the rule (the evaluation it made, the calibration fitted, the failure). */
export async function setReviewLoop(
  db: Database,
  id: string,
  loop: { status: LoopStatus; evaluation?: string; calibration?: string | null; error?: string | null },
): Promise<void> {
  await db.sql().query(
    `UPDATE review_rules SET loop_status = $2, loop_evaluation = coalesce($3, loop_evaluation),
            loop_calibration = $4, loop_error = $5 WHERE id = $1`,
    [id, loop.status, loop.evaluation ?? null, loop.calibration ?? null, loop.error ?? null],
  );
}

/** The account's rules whose loop evaluation has finished (done, failed or cancelled) but is not yet closed. */
export async function rulesAwaitingFit(db: Database, accountId: string): Promise<ReviewRuleRow[]> {
  const rows = (await db.sql().query(
    `SELECT r.* FROM review_rules r JOIN evaluations e ON e.id = r.loop_evaluation
      WHERE r.account_id = $1 AND r.loop_status = 'evaluating' AND e.status IN ('done', 'failed', 'cancelled')`,
    [accountId],
  )) as Record<string, unknown>[];
  return rows.map(toRule);
}

/**
 * Moves a rule from `evaluating` to `fitting` once (a concurrent closer gets false): the one place the fit starts,
 * so two alarms never fit one evaluation twice.
 */
export async function takeLoop(db: Database, id: string, evaluation: string): Promise<boolean> {
  const rows = (await db.sql().query(
    `UPDATE review_rules SET loop_status = 'fitting'
      WHERE id = $1 AND loop_status = 'evaluating' AND loop_evaluation = $2 RETURNING id`,
    [id, evaluation],
  )) as unknown[];
  return rows.length > 0;
}
