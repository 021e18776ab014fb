import { FINISHED_BATCH } from "./batch-rows";
import { asRows, type Database, msOrNull } from "./db";
import type { QuestionTally } from "./question-tallies";

/** A line of the chunk being run, as the runner reads it. */
export interface LineRow {
  line: number;
  attempt: string | null;
  faults: number;
  status: number | null;
  result: string | null;
}

/** A finished line whose usage event is not written yet. */
export interface UnrecordedLine {
  line: number;
  attempt: string;
  status: number;
  model: string;
  inputTokens: number;
  stateTokens: number;
  questionTokens: number;
  chargeMicroCents: number;
  unitPrice: number;
  tier: string | null;
  finishedAt: number;
  /** A 200 line's answers as counts (issue 52), carried to its usage event. */
  questions: QuestionTally[] | null;
}

/** Creates the rows of a chunk's lines (once: a repeat inserts nothing). */
export async function openChunk(
  db: Database,
  id: string,
  chunk: number,
  first: number,
  count: number,
): Promise<void> {
  await db.sql().query(
    `INSERT INTO batch_lines (batch_id, line, chunk)
     SELECT $1, g, $2 FROM generate_series($3::int, $3::int + $4::int - 1) AS g
     ON CONFLICT DO NOTHING`,
    [id, chunk, first, count],
  );
}

/** Lines of a chunk not finished yet, in order. */
export async function pendingLines(
  db: Database,
  id: string,
  chunk: number,
  limit: number,
): Promise<LineRow[]> {
  const r = asRows(
    await db.sql().query(
      `SELECT line, attempt, faults, status, result FROM batch_lines
        WHERE batch_id = $1 AND chunk = $2 AND status IS NULL ORDER BY line LIMIT $3`,
      [id, chunk, limit],
    ),
  );
  return r.map((x) => ({
    line: Number(x.line),
    attempt: (x.attempt as string | null) ?? null,
    faults: Number(x.faults),
    status: null,
    result: null,
  }));
}

/**
 * Gives a line to a new attempt: the previous attempt, if any, joins `owed` (its debit, if it was taken, is to be
 * refunded before the new one may charge). Returns what is owed, or null when the line is finished or gone.
 */
export async function claimLine(
  db: Database,
  id: string,
  line: number,
  attempt: string,
): Promise<string[] | null> {
  const r = asRows(
    await db.sql().query(
      `UPDATE batch_lines
          SET owed = CASE WHEN attempt IS NULL THEN owed ELSE array_append(owed, attempt) END, attempt = $3
        WHERE batch_id = $1 AND line = $2 AND status IS NULL
        RETURNING owed`,
      [id, line, attempt],
    ),
  );
  return r[0] ? (r[0].owed as string[]) : null;
}

/** The earlier attempts of a line are settled (refunded where they had been debited). */
export async function clearOwed(db: Database, id: string, line: number, settled: string[]): Promise<void> {
  await db.sql().query(
    `UPDATE batch_lines SET owed = ARRAY(SELECT o FROM unnest(owed) AS o WHERE NOT (o = ANY($3::text[])))
      WHERE batch_id = $1 AND line = $2`,
    [id, line, settled],
  );
}

/** Attempts settled through the ledger leave every line of the batch that owed them. */
export async function clearSettled(db: Database, id: string, settled: string[]): Promise<void> {
  if (settled.length === 0) return;
  await db.sql().query(
    `UPDATE batch_lines SET owed = ARRAY(SELECT o FROM unnest(owed) AS o WHERE NOT (o = ANY($2::text[])))
      WHERE batch_id = $1 AND owed && $2::text[]`,
    [id, settled],
  );
}

/** An engine fault on a line's attempt: how many in a row now. */
export async function addLineFault(db: Database, id: string, line: number): Promise<number> {
  const r = asRows(
    await db
      .sql()
      .query(
        "UPDATE batch_lines SET faults = faults + 1 WHERE batch_id = $1 AND line = $2 RETURNING faults",
        [id, line],
      ),
  );
  return Number(r[0]?.faults ?? 0);
}

/** What a finished line stores: its result line and what its usage event needs. */
export interface LineOutcome {
  status: number;
  result: string;
  model: string;
  inputTokens: number;
  stateTokens: number;
  questionTokens: number;
  chargeMicroCents: number;
  unitPrice: number;
  tier: string | null;
  /** A 200 line's answers as counts (issue 52); absent: none. */
  questions?: QuestionTally[];
}

/**
 * Counts a finished line ONCE: stores its result and adds it to the batch's counts and usage only if `attempt`
 * still holds the line and it was not finished (one statement). False: another attempt holds it, it is
 * finished, or the batch is gone — the caller refunds its own debit.
 */
export async function commitLine(
  db: Database,
  id: string,
  line: number,
  attempt: string,
  o: LineOutcome,
): Promise<boolean> {
  const r = asRows(
    await db.sql().query(
      `WITH l AS (
         UPDATE batch_lines SET status = $4, result = $5, model = $6, input_tokens = $7, state_tokens = $8,
                question_tokens = $9, charge_micro_cents = $10, unit_price = $11, tier = $12, finished_at = now(),
                questions = $13::jsonb
          WHERE batch_id = $1 AND line = $2 AND attempt = $3 AND status IS NULL
          RETURNING status, input_tokens, charge_micro_cents)
       UPDATE batches
          SET done = done + (SELECT count(*) FROM l WHERE status = 200),
              failed = failed + (SELECT count(*) FROM l WHERE status <> 200),
              input_tokens = input_tokens + coalesce((SELECT sum(input_tokens) FROM l WHERE status = 200), 0),
              charge_micro_cents = charge_micro_cents
                + coalesce((SELECT sum(charge_micro_cents) FROM l WHERE status = 200), 0),
              updated_at = now()
        WHERE id = $1 AND EXISTS (SELECT 1 FROM l)
        RETURNING id`,
      [
        id,
        line,
        attempt,
        o.status,
        o.result,
        o.model,
        o.inputTokens,
        o.stateTokens,
        o.questionTokens,
        o.chargeMicroCents,
        o.unitPrice,
        o.tier,
        o.questions ? JSON.stringify(o.questions) : null,
      ],
    ),
  );
  return r.length > 0;
}

/** Finished lines of the batch whose usage events are not written yet. */
export async function unrecordedLines(db: Database, id: string): Promise<UnrecordedLine[]> {
  const r = asRows(
    await db.sql().query(
      `SELECT line, attempt, status, model, input_tokens, state_tokens, question_tokens, charge_micro_cents,
              unit_price, tier, finished_at, questions
         FROM batch_lines WHERE batch_id = $1 AND status IS NOT NULL AND NOT usage_recorded ORDER BY line`,
      [id],
    ),
  );
  return r.map((x) => ({
    line: Number(x.line),
    attempt: String(x.attempt),
    status: Number(x.status),
    model: String(x.model),
    inputTokens: Number(x.input_tokens),
    stateTokens: Number(x.state_tokens),
    questionTokens: Number(x.question_tokens),
    chargeMicroCents: Number(x.charge_micro_cents),
    unitPrice: Number(x.unit_price),
    tier: (x.tier as string | null) ?? null,
    finishedAt: msOrNull(x.finished_at)!,
    questions:
      typeof x.questions === "string"
        ? JSON.parse(x.questions)
        : ((x.questions as QuestionTally[] | null) ?? null),
  }));
}

/** Those lines' usage events are written. */
export async function markLinesRecorded(db: Database, id: string, lines: number[]): Promise<void> {
  await db
    .sql()
    .query("UPDATE batch_lines SET usage_recorded = true WHERE batch_id = $1 AND line = ANY($2::int[])", [
      id,
      lines,
    ]);
}

/**
 * A finished batch's (cancelled, expired, failed) unfinished lines let go of their attempts, in one statement:
 * each line's attempt joins its `owed` (to be settled) and no attempt holds it, so an attempt still in flight can
 * no longer be counted (its commit is refused and it refunds its own debit). Nothing for an active batch.
 * Returns the lines' owed attempts: the caller settles them through the ledger, then `clearOwed`.
 */
export async function lapseUnfinishedLines(
  db: Database,
  id: string,
): Promise<{ line: number; owed: string[] }[]> {
  const r = asRows(
    await db.sql().query(
      `WITH finished AS (SELECT 1 FROM batches WHERE id = $1 AND ${FINISHED_BATCH}),
       lapsed AS (
         UPDATE batch_lines SET owed = array_append(owed, attempt), attempt = NULL
          WHERE batch_id = $1 AND status IS NULL AND attempt IS NOT NULL AND EXISTS (SELECT 1 FROM finished)
          RETURNING line, owed)
       SELECT line, owed FROM lapsed
       UNION ALL
       SELECT line, owed FROM batch_lines
        WHERE batch_id = $1 AND owed <> '{}' AND EXISTS (SELECT 1 FROM finished)
          AND line NOT IN (SELECT line FROM lapsed)`,
      [id],
    ),
  );
  return r.map((x) => ({ line: Number(x.line), owed: x.owed as string[] }));
}

/** The account's finished batches with a line whose attempt is not settled yet (at most `limit`). */
export async function finishedBatchesToSettle(
  db: Database,
  accountId: string,
  limit = 20,
): Promise<{ id: string; mode: "live" | "test" }[]> {
  const r = asRows(
    await db.sql().query(
      `SELECT b.id, b.mode FROM batches b
        WHERE b.account_id = $1 AND b.${FINISHED_BATCH}
          AND EXISTS (SELECT 1 FROM batch_lines l WHERE l.batch_id = b.id
                        AND (l.status IS NULL OR NOT l.usage_recorded)
                        AND ((l.status IS NULL AND l.attempt IS NOT NULL) OR l.owed <> '{}'))
        ORDER BY b.id LIMIT $2`,
      [accountId, limit],
    ),
  );
  return r.map((x) => ({ id: String(x.id), mode: x.mode as "live" | "test" }));
}
