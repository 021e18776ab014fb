import { asRows, type Database } from "./db";

/** The result lines of a chunk's finished lines, in input order. */
export async function chunkResults(db: Database, id: string, chunk: number): Promise<string[]> {
  const r = asRows(
    await db
      .sql()
      .query(
        "SELECT result FROM batch_lines WHERE batch_id = $1 AND chunk = $2 AND status IS NOT NULL ORDER BY line",
        [id, chunk],
      ),
  );
  return r.map((x) => String(x.result));
}

/**
 * A chunk's results are in R2: the batch moves past it and its rows go (only once every line's usage event is
 * written). False when the chunk was already written out (a repeat).
 */
export async function closeChunk(db: Database, id: string, chunk: number): Promise<boolean> {
  const sql = db.sql();
  const [moved] = await sql.transaction([
    sql.query(
      `UPDATE batches SET chunks_written = chunks_written + 1, updated_at = now()
        WHERE id = $1 AND chunks_written = $2 RETURNING id`,
      [id, chunk],
    ),
    sql.query(
      `DELETE FROM batch_lines WHERE batch_id = $1 AND chunk = $2 AND usage_recorded
          AND (SELECT chunks_written FROM batches WHERE id = $1) > $2`,
      [id, chunk],
    ),
  ]);
  return asRows(moved).length > 0;
}

/** Batches whose results' retention has passed (the cron deletes their objects, then the rows). */
export async function expiredResults(
  db: Database,
  limit: number,
): Promise<{ id: string; accountId: string }[]> {
  const r = asRows(
    await db
      .sql()
      .query(
        "SELECT id, account_id FROM batches WHERE results_expire_at <= now() ORDER BY results_expire_at LIMIT $1",
        [limit],
      ),
  );
  return r.map((x) => ({ id: String(x.id), accountId: String(x.account_id) }));
}
