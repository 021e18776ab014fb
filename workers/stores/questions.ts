import type { CalibrationMap } from "../../schema/calibration-map";
import { asRows, type Database, isoTime } from "./db";

/** A question of the account (one mode's), with what the list shows of it. */
export interface QuestionRow {
  id: string;
  mode: "live" | "test";
  fingerprint: string;
  type: "check" | "pick" | "rate";
  definition: string;
  firstAsked: number;
  lastAsked: number;
  count7d: number;
  /** Exact versions that answered it, the latest asked first. */
  versions: string[];
  calibration: string | null;
  /** The account's newest review rule of this question in this mode (issue 51), if any. */
  reviewRule: string | null;
}

/** One hour × version of a question's aggregates. */
export interface QuestionHour {
  hour: number;
  model: string;
  answers: number;
  mix: number[];
  pBins: number[] | null;
  pSum: number;
  confidenceSum: number;
  abstained: number;
}

const ms = (v: unknown) => new Date(String(v)).getTime();
const nums = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number) : []);

const QUESTION_SELECT = `
  SELECT q.*,
         (SELECT coalesce(sum(h.answers), 0) FROM question_hourly h
           WHERE (h.account_id, h.mode, h.question_id) = (q.account_id, q.mode, q.id) AND h.hour >= $3::timestamptz)
           AS count_7d,
         (SELECT array_agg(v.model ORDER BY v.last DESC) FROM
            (SELECT h.model, max(h.hour) AS last FROM question_hourly h
              WHERE (h.account_id, h.mode, h.question_id) = (q.account_id, q.mode, q.id) GROUP BY h.model) v)
           AS versions,
         (SELECT c.id FROM calibrations c
           WHERE c.account_id = q.account_id AND c.fingerprint = q.fingerprint AND c.mode = q.mode AND c.active
           ORDER BY c.created_at DESC LIMIT 1) AS calibration,
         (SELECT r.id FROM review_rules r
           WHERE r.account_id = q.account_id AND r.fingerprint = q.fingerprint AND r.mode = q.mode
           ORDER BY r.id DESC LIMIT 1) AS review_rule
    FROM questions q`;

function toQuestion(r: Record<string, unknown>): QuestionRow {
  return {
    id: String(r.id),
    mode: r.mode === "test" ? "test" : "live",
    fingerprint: String(r.fingerprint),
    type: String(r.type) as QuestionRow["type"],
    definition: String(r.definition),
    firstAsked: ms(r.first_asked),
    lastAsked: ms(r.last_asked),
    count7d: Number(r.count_7d),
    versions: Array.isArray(r.versions) ? r.versions.map(String) : [],
    calibration: (r.calibration as string | null) ?? null,
    reviewRule: (r.review_rule as string | null) ?? null,
  };
}

/** A page of the account's questions of one mode, by id, after `after`; one more than `limit` tells there is more. */
export async function listQuestions(
  db: Database,
  accountId: string,
  mode: "live" | "test",
  page: { limit: number; after: string | null },
  nowMs: number,
): Promise<QuestionRow[]> {
  const r = asRows(
    await db.sql().query(
      `${QUESTION_SELECT} WHERE q.account_id = $1 AND q.mode = $2 AND ($4::text IS NULL OR q.id > $4)
        ORDER BY q.id LIMIT $5`,
      [accountId, mode, isoTime(nowMs - 7 * 86_400_000), page.after, page.limit + 1],
    ),
  );
  return r.map(toQuestion);
}

/** One question of the account's mode, or null. */
export async function findQuestion(
  db: Database,
  accountId: string,
  mode: "live" | "test",
  id: string,
  nowMs: number,
): Promise<QuestionRow | null> {
  const r = asRows(
    await db
      .sql()
      .query(`${QUESTION_SELECT} WHERE q.account_id = $1 AND q.mode = $2 AND q.id = $4`, [
        accountId,
        mode,
        isoTime(nowMs - 7 * 86_400_000),
        id,
      ]),
  );
  return r[0] ? toQuestion(r[0]) : null;
}

/** The question's aggregates per hour and version in [startMs, endMs), oldest first. */
export async function questionHours(
  db: Database,
  accountId: string,
  mode: "live" | "test",
  id: string,
  startMs: number,
  endMs: number,
): Promise<QuestionHour[]> {
  const r = asRows(
    await db.sql().query(
      `SELECT hour, model, answers, mix, p_bins, p_sum, confidence_sum, abstained FROM question_hourly
        WHERE account_id = $1 AND mode = $2 AND question_id = $3 AND hour >= $4 AND hour < $5
        ORDER BY hour, model`,
      [accountId, mode, id, isoTime(startMs), isoTime(endMs)],
    ),
  );
  return r.map((x) => ({
    hour: ms(x.hour),
    model: String(x.model),
    answers: Number(x.answers),
    mix: nums(x.mix),
    pBins: x.p_bins === null ? null : nums(x.p_bins),
    pSum: Number(x.p_sum),
    confidenceSum: Number(x.confidence_sum),
    abstained: Number(x.abstained),
  }));
}

/** The first hour each exact version answered the question at or after `sinceMs`. */
export async function versionsFirstAsked(
  db: Database,
  accountId: string,
  mode: "live" | "test",
  id: string,
  sinceMs: number,
): Promise<Map<string, number>> {
  const r = asRows(
    await db.sql().query(
      `SELECT model, min(hour) AS first FROM question_hourly
        WHERE account_id = $1 AND mode = $2 AND question_id = $3 AND hour >= $4 GROUP BY model`,
      [accountId, mode, id, isoTime(sinceMs)],
    ),
  );
  return new Map(r.map((x) => [String(x.model), ms(x.first)]));
}

/** Questions answered since `sinceMs` (what the scheduled drift evaluation looks at), at most `limit`. */
export async function recentlyAskedQuestions(
  db: Database,
  sinceMs: number,
  limit: number,
): Promise<
  Array<{
    accountId: string;
    mode: "live" | "test";
    id: string;
    type: QuestionRow["type"];
    fingerprint: string;
  }>
> {
  const r = asRows(
    await db
      .sql()
      .query(
        "SELECT account_id, mode, id, type, fingerprint FROM questions WHERE last_asked >= $1 ORDER BY last_asked DESC LIMIT $2",
        [isoTime(sinceMs), limit],
      ),
  );
  return r.map((x) => ({
    accountId: String(x.account_id),
    mode: x.mode === "test" ? "test" : "live",
    id: String(x.id),
    type: String(x.type) as QuestionRow["type"],
    fingerprint: String(x.fingerprint),
  }));
}

/** The account's active calibration of a question (by fingerprint) on one exact version, in one mode. */
export interface QuestionCalibration {
  id: string;
  evaluationId: string;
  /** The question's id in the evaluation's items. */
  questionId: string;
  map: CalibrationMap;
  learned: boolean;
}

export async function activeCalibrationFor(
  db: Database,
  accountId: string,
  mode: "live" | "test",
  fingerprint: string,
  model: string,
): Promise<QuestionCalibration | null> {
  const r = asRows(
    await db.sql().query(
      `SELECT id, evaluation_id, question_id, map, learned IS NOT NULL AS learned FROM calibrations
        WHERE account_id = $1 AND mode = $2 AND fingerprint = $3 AND model = $4 AND active`,
      [accountId, mode, fingerprint, model],
    ),
  );
  const x = r[0];
  if (!x) return null;
  return {
    id: String(x.id),
    evaluationId: String(x.evaluation_id),
    questionId: String(x.question_id),
    map: JSON.parse(String(x.map)) as CalibrationMap,
    learned: x.learned === true || x.learned === "t" || x.learned === "true",
  };
}
