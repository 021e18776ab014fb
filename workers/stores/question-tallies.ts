import { sha256Hex } from "../../schema/hex";
import { questionResourceId } from "../../schema/questions";

/**
 * One question's answer in one decide, as the usage event carries it to the aggregates (issue 52): the question's
 * definition, and counts only (never the state). `id` and `fingerprint` are filled by the writer, off the hot path.
 */
export interface QuestionTally {
  /** The definition's JSON text (workers/decide/question-fingerprint.ts). */
  definition: string;
  type: "check" | "pick" | "rate";
  /** One-hot over the options or levels in order; a check's [no, yes]. */
  mix: number[];
  /** A check's one-hot over the ten tenths of P(yes); null otherwise. */
  p_bins: number[] | null;
  /** A check's P(yes); null otherwise. */
  p: number | null;
  confidence: number;
  abstained: boolean;
  fingerprint?: string;
  id?: string;
}

/** Fills each tally's fingerprint (SHA-256 hex of its definition) and question id. */
export async function identifyTallies(tallies: readonly QuestionTally[]): Promise<void> {
  const seen = new Map<string, string>();
  for (const t of tallies) {
    if (t.id !== undefined) continue;
    let fingerprint = seen.get(t.definition);
    if (fingerprint === undefined) {
      fingerprint = await sha256Hex(t.definition);
      seen.set(t.definition, fingerprint);
    }
    t.fingerprint = fingerprint;
    t.id = questionResourceId(fingerprint);
  }
}

/**
 * CTEs (after `ins`, the usage events just inserted, and with `[{request_id, questions}]` as $2: the tallies of the
 * events that carry some, apart from the events' own array in $1) that add the
 * successful, non-replayed events' question tallies to `questions` and `question_hourly`: grouped by row first
 * (one statement may not update a row twice), so they ride in the usage event's one statement.
 */
export const QUESTION_TALLY_CTES = `
  , qt AS (
    SELECT ins.account_id, ins.mode, ins.model, ins.created_at, t.*
      FROM ins
      JOIN jsonb_to_recordset($2::jsonb) AS e(request_id text, questions jsonb) ON e.request_id = ins.request_id
     CROSS JOIN LATERAL jsonb_to_recordset(e.questions) AS t(id text, fingerprint text, type text, definition text,
                        mix bigint[], p_bins bigint[], p double precision, confidence double precision,
                        abstained boolean)
     WHERE ins.status = 200 AND NOT ins.replayed AND ins.model IS NOT NULL
       AND jsonb_typeof(e.questions) = 'array' AND t.id IS NOT NULL
  ), q_def AS (
    INSERT INTO questions (account_id, mode, id, fingerprint, type, definition, first_asked, last_asked)
    SELECT account_id, mode, id, min(fingerprint), min(type), min(definition), min(created_at), max(created_at)
      FROM qt GROUP BY 1, 2, 3
    ON CONFLICT (account_id, mode, id) DO UPDATE
       SET first_asked = least(questions.first_asked, EXCLUDED.first_asked),
           last_asked = greatest(questions.last_asked, EXCLUDED.last_asked)
  ), q_hour AS (
    INSERT INTO question_hourly (account_id, mode, question_id, model, hour, answers, mix, p_bins, p_sum,
                                 confidence_sum, abstained)
    SELECT account_id, mode, id, model, date_trunc('hour', created_at, 'UTC'), count(*), question_sum_counts(mix),
           question_sum_counts(p_bins), coalesce(sum(p), 0), sum(confidence), count(*) FILTER (WHERE abstained)
      FROM qt GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (account_id, mode, question_id, hour, model) DO UPDATE
       SET answers = question_hourly.answers + EXCLUDED.answers,
           mix = question_add_counts(question_hourly.mix, EXCLUDED.mix),
           p_bins = question_add_counts(question_hourly.p_bins, EXCLUDED.p_bins),
           p_sum = question_hourly.p_sum + EXCLUDED.p_sum,
           confidence_sum = question_hourly.confidence_sum + EXCLUDED.confidence_sum,
           abstained = question_hourly.abstained + EXCLUDED.abstained
  )`;
