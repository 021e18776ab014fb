import { type Database, msOrNull } from "./db";

/** An item to insert: its position, request and expected labels as JSON text, and token counts. */
export interface NewItem {
  idx: number;
  request: string;
  expected: string;
  input_tokens: number;
  state_tokens: number;
  question_tokens: number;
}

/** An item as the runner and the item listing read it. */
export interface ItemRow {
  idx: number;
  request: string;
  expected: string;
  inputTokens: number;
  stateTokens: number;
  questionTokens: number;
  done: boolean;
  attempt: string | null;
  answers: string | null;
  calibration: string | null;
  scoredAt: number | null;
}

function toItem(r: Record<string, unknown>): ItemRow {
  return {
    idx: Number(r.idx),
    request: String(r.request),
    expected: String(r.expected),
    inputTokens: Number(r.input_tokens),
    stateTokens: Number(r.state_tokens),
    questionTokens: Number(r.question_tokens),
    done: r.status === "done",
    attempt: (r.attempt as string | null) ?? null,
    answers: (r.answers as string | null) ?? null,
    calibration: (r.calibration as string | null) ?? null,
    scoredAt: msOrNull(r.scored_at),
  };
}

/** A page of an evaluation's items in upload order, from position `from`. */
export async function listItems(db: Database, id: string, from: number, limit: number): Promise<ItemRow[]> {
  const rows = (await db
    .sql()
    .query(`SELECT * FROM evaluation_items WHERE evaluation_id = $1 AND idx >= $2 ORDER BY idx LIMIT $3`, [
      id,
      from,
      limit,
    ])) as Record<string, unknown>[];
  return rows.map(toItem);
}

/** Up to `n` items still to score, in upload order, while the evaluation is running. */
export async function pendingItems(db: Database, id: string, n: number): Promise<ItemRow[]> {
  const rows = (await db.sql().query(
    `SELECT i.* FROM evaluation_items i JOIN evaluations e ON e.id = i.evaluation_id
      WHERE i.evaluation_id = $1 AND e.status = 'running' AND i.status <> 'done'
      ORDER BY i.idx LIMIT $2`,
    [id, n],
  )) as Record<string, unknown>[];
  return rows.map(toItem);
}

/**
 * Stores an item's answers and counts it, in one statement, only if it was not scored before and the run is
 * still running: each item is counted exactly once however often it was sent to the engine. True when counted.
 */
export async function commitItem(
  db: Database,
  id: string,
  idx: number,
  r: { attempt: string; answers: string; calibration: string; scoredAt: number },
): Promise<boolean> {
  const rows = (await db.sql().query(
    `WITH it AS (
       UPDATE evaluation_items
          SET status = 'done', attempt = $3, answers = $4, calibration = $5, scored_at = $6
        WHERE evaluation_id = $1 AND idx = $2 AND status <> 'done'
          AND EXISTS (SELECT 1 FROM evaluations WHERE id = $1 AND status = 'running')
        RETURNING input_tokens
     )
     UPDATE evaluations
        SET done = done + (SELECT count(*) FROM it),
            input_tokens = input_tokens + coalesce((SELECT sum(input_tokens) FROM it), 0),
            updated_at = now()
      WHERE id = $1
      RETURNING (SELECT count(*) FROM it)::int AS counted`,
    [id, idx, r.attempt, r.answers, r.calibration, new Date(r.scoredAt).toISOString()],
  )) as Array<{ counted: number }>;
  return (rows[0]?.counted ?? 0) === 1;
}

/** Scored items whose usage event is not yet known to be written. */
export async function unrecordedItems(db: Database, id: string): Promise<ItemRow[]> {
  const rows = (await db
    .sql()
    .query(
      `SELECT * FROM evaluation_items WHERE evaluation_id = $1 AND status = 'done' AND NOT usage_recorded ORDER BY idx`,
      [id],
    )) as Record<string, unknown>[];
  return rows.map(toItem);
}

/** Those items' usage events are written. */
export async function markUsageRecorded(db: Database, id: string, idxs: readonly number[]): Promise<void> {
  await db
    .sql()
    .query(
      `UPDATE evaluation_items SET usage_recorded = true WHERE evaluation_id = $1 AND idx = ANY($2::int[])`,
      [id, idxs],
    );
}

/** Every item's expected labels and answers (for the metrics), in upload order. */
export async function scoredItems(
  db: Database,
  id: string,
): Promise<Array<{ expected: string; answers: string | null }>> {
  return (await db
    .sql()
    .query(`SELECT expected, answers FROM evaluation_items WHERE evaluation_id = $1 ORDER BY idx`, [
      id,
    ])) as Array<{
    expected: string;
    answers: string | null;
  }>;
}
