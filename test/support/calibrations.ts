import { shapeAnswer } from "../../schema/answers";
import type { ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import { Rng } from "../../schema/rng";
import type { QueryFn } from "../../scripts/migrations";
import { evaluationMetrics } from "../../workers/evaluations/metrics";
import type { SeedQuery } from "./seed";

/** The check every calibration test labels (as written in its items and in the decides that should match). */
export const REFUND_CHECK = { type: "check", instructions: "Does the customer ask for a refund?" } as const;

/** One labelled check answer: the version's unrounded P(yes) and the expected answer. */
export interface LabelledCheck {
  pYes: number;
  yes: boolean;
}

/** `n` checks answered under-confidently: the version says σ(x) where the truth is σ(2x) (seeded). */
export function underConfidentChecks(n: number, seed = 7): LabelledCheck[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const x = (rng.next() - 0.5) * 6;
    return { pYes: 1 / (1 + Math.exp(-x)), yes: rng.next() < 1 / (1 + Math.exp(-2 * x)) };
  });
}

/** Inserts a `done` evaluation of `checks` for question `refund` (with its unrounded distributions, or not). */
export async function insertDoneEvaluation(
  q: SeedQuery,
  accountId: string,
  checks: readonly LabelledCheck[],
  o: { status?: string; model?: string; distributions?: boolean; question?: object; name?: string } = {},
): Promise<string> {
  const id = `eval_01JD${crypto
    .randomUUID()
    .replace(/-/g, "")
    .toUpperCase()
    .replace(/[ILOU]/g, "A")
    .slice(0, 22)}`;
  await q(
    `INSERT INTO evaluations (id, account_id, key_id, name, model, status, total, done, metrics, expires_at)
     VALUES ($1, $2, 'key_test', $6, $3, $4, $5, $5, '{}', now() + interval '30 days')`,
    [id, accountId, o.model ?? "svc-1.5.1", o.status ?? "done", checks.length, o.name ?? "labels"],
  );
  const question = o.question ?? REFUND_CHECK;
  const items = checks.map((c, idx) => {
    const answer = shapeAnswer({ id: "refund", type: "check", instructions: "", criteria: [] }, [
      c.pYes,
      1 - c.pYes,
    ]);
    const entry = {
      id: "refund",
      answer,
      ...(o.distributions !== false && { distribution: [c.pYes, 1 - c.pYes] }),
    };
    return {
      idx,
      request: JSON.stringify({ state: `Ticket ${idx}`, questions: { refund: question } }),
      expected: JSON.stringify({ refund: c.yes }),
      answers: JSON.stringify({ model: o.model ?? "svc-1.5.1", answers: [entry] }),
    };
  });
  await q(
    `INSERT INTO evaluation_items (evaluation_id, idx, request, expected, input_tokens, state_tokens, question_tokens,
                                   status, attempt, answers, calibration, scored_at, usage_recorded)
     SELECT $1, x.idx, x.request, x.expected, 10, 5, 5, 'done', 'req_x', x.answers, 'cal-20261126-0', now(), true
       FROM jsonb_to_recordset($2::jsonb) AS x(idx int, request text, expected text, answers text)`,
    [id, JSON.stringify(items)],
  );
  return id;
}

/** Stores the metrics the runner computes from the evaluation's stored answers (what a finished run shows). */
export async function storeEvaluationMetrics(q: QueryFn, id: string): Promise<void> {
  const { rows } = await q(
    "SELECT expected, answers FROM evaluation_items WHERE evaluation_id = $1 ORDER BY idx",
    [id],
  );
  const metrics = evaluationMetrics(
    rows.map((r) => ({
      answers: (JSON.parse(String(r.answers)) as ScoreResponse).answers,
      expected: JSON.parse(String(r.expected)) as Record<string, string | boolean>,
    })),
  );
  await q("UPDATE evaluations SET metrics = $2 WHERE id = $1", [id, JSON.stringify(metrics)]);
}

/** A GPU stand-in: every check P(yes) = `pYes` (unrounded distribution when asked), every pick uniform. */
export function fixedCheckEngine(pYes: number, seen: ScoreRequest[] = []) {
  return {
    seen,
    dispatch: async (req: ScoreRequest) => {
      seen.push(req);
      const answers = req.questions.map((q) => {
        const k = q.type === "pick" ? q.options.length : q.type === "rate" ? q.levels.length : 2;
        const p = q.type === "check" ? [pYes, 1 - pYes] : Array.from({ length: k }, () => 1 / k);
        return { id: q.id, answer: shapeAnswer(q, p), ...(req.distributions && { distribution: p }) };
      });
      return {
        served_by: "gpu" as const,
        numerics_class: "test-class",
        result: { model: req.model, calibration: "cal-20261126-0", answers },
      };
    },
  };
}
