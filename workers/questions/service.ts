import { QUESTION_RESOURCE_ID_PATTERN } from "../../schema/questions";
import { ApiError } from "../errors";
import type { PageQuery } from "../http/list-query";
import type { UsageRange } from "../reports/params";
import { updateDriftSettings } from "../stores/question-drift";
import { findQuestion, listQuestions, type QuestionRow, questionHours } from "../stores/questions";
import { type DriftDeps, type DriftReport, evaluateDrift } from "./drift";
import { shapeSeries } from "./series";

/** Whose questions: the account, in one mode (a key sees its own mode's; the console the live ones). */
export interface QuestionOwner {
  accountId: string;
  mode: "live" | "test";
}

/** A change of a question's drift settings (POST …/drift). */
export interface DriftChange {
  threshold: number | null;
  resetReference: boolean;
}

const notFound = (id: string) =>
  new ApiError("question_not_found", { param: "id", message: `No question \`${id}\` in the account.` });

/** The account's questions, a page at a time (by id). */
export async function listAccountQuestions(
  deps: DriftDeps,
  owner: QuestionOwner,
  page: PageQuery,
  nowMs: number,
): Promise<{ data: QuestionRow[]; hasMore: boolean }> {
  const rows = await listQuestions(deps.db, owner.accountId, owner.mode, page, nowMs);
  return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** One question of the owner's, else 404 `question_not_found`. */
export async function getQuestion(
  deps: DriftDeps,
  owner: QuestionOwner,
  id: string,
  nowMs: number,
): Promise<QuestionRow> {
  const row = QUESTION_RESOURCE_ID_PATTERN.test(id)
    ? await findQuestion(deps.db, owner.accountId, owner.mode, id, nowMs)
    : null;
  if (!row) throw notFound(id);
  return row;
}

/** The question over `range`, bucket by bucket. */
export async function questionSeries(deps: DriftDeps, owner: QuestionOwner, id: string, range: UsageRange) {
  const q = await getQuestion(deps, owner, id, range.endMs);
  const hours = await questionHours(deps.db, owner.accountId, owner.mode, q.id, range.startMs, range.endMs);
  return shapeSeries(q, range, hours);
}

/** The question's drift now, evaluated on read (a crossing queues its event, as the scheduled evaluation does). */
export async function questionDrift(
  deps: DriftDeps,
  owner: QuestionOwner,
  id: string,
  nowMs: number,
): Promise<DriftReport> {
  const q = await getQuestion(deps, owner, id, nowMs);
  return evaluateDrift(deps, { ...q, accountId: owner.accountId }, nowMs, true);
}

/** Sets the threshold and/or restarts the reference from now; answers the drift as it now reads. */
export async function changeQuestionDrift(
  deps: DriftDeps,
  owner: QuestionOwner,
  id: string,
  change: DriftChange,
  nowMs: number,
): Promise<DriftReport> {
  const q = await getQuestion(deps, owner, id, nowMs);
  await updateDriftSettings(deps.db, owner.accountId, owner.mode, q.id, {
    threshold: change.threshold,
    resetAt: change.resetReference ? nowMs : null,
  });
  return evaluateDrift(deps, { ...q, accountId: owner.accountId }, nowMs, true);
}
