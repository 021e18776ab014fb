import type { Context } from "hono";
import { ulid } from "ulid";
import { EVALUATION_ID_PATTERN } from "../../schema/evaluations";
import { kickRunner } from "../clients/runner";
import type { AppEnv } from "../context/app-env";
import { decisionJson } from "../decide/decision";
import { ApiError } from "../errors";
import { readBodyLimited } from "../http/body";
import { checkContentType } from "../http/content-type";
import { intParam, queryOf } from "../http/list-query";
import { parseJsonBody } from "../http/parse-json";
import type { MoneySubject } from "../limits/key-limits";
import { type ItemRow, listItems } from "../stores/evaluation-items";
import {
  cancelEvaluation,
  deleteEvaluation,
  type EvaluationRow,
  findEvaluation,
  insertEvaluation,
  listEvaluations,
} from "../stores/evaluations";
import { validateEvaluationBody } from "./validate";

/** Items and answers are kept this long, then deleted with the evaluation. */
export const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
/** A run whose row has not moved for this long while it should be working is kicked again by a read. */
export const STALL_MS = 10_000;

/** Evaluations queued, running or paused at once per account (issue 45: a flood of creations queues nothing). */
export const MAX_ACTIVE_EVALUATIONS = 5;
/** Bytes of items stored per account over its live evaluations (request + expected JSON text as uploaded). */
export const MAX_STORED_EVALUATION_BYTES = 64 * 1024 * 1024;

/** Who owns what the route creates and reads: the account, the key id its usage is recorded under, its limits. */
export interface EvaluationOwner {
  accountId: string;
  keyId: string;
  /** Whose requests per minute a creation counts against (the key's; the console's playground caller). */
  subject?: MoneySubject;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** The Evaluation object (schema/evaluations.ts). */
export function evaluationJson(e: EvaluationRow) {
  return {
    id: e.id,
    object: "evaluation" as const,
    name: e.name,
    model: e.model,
    status: e.status,
    progress: { done: e.done, total: e.total },
    usage: { input_tokens: e.inputTokens },
    created: seconds(e.createdAt)!,
    started: seconds(e.startedAt),
    finished: seconds(e.finishedAt),
    resumes_at: e.status === "paused" ? seconds(e.resumesAt) : null,
    expires_at: seconds(e.expiresAt)!,
    failure: e.failureCode ? { code: e.failureCode, message: e.failureMessage ?? "" } : null,
    metrics: e.status === "done" ? (e.metrics ?? {}) : null,
  };
}

const notFound = (id: string) =>
  new ApiError("evaluation_not_found", { param: "id", message: `No evaluation \`${id}\` in this account.` });

/** Runs in the background after the response (Workers `waitUntil`; detached where there is none). */
function inBackground(c: Context<AppEnv>, work: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    void work;
  }
}

const utf8 = new TextEncoder();

/** The 429 / 409 of a creation past the account's caps (`MAX_ACTIVE_EVALUATIONS`, `MAX_STORED_EVALUATION_BYTES`). */
function capError(code: Exclude<Awaited<ReturnType<typeof insertEvaluation>>, EvaluationRow>): ApiError {
  return code === "evaluations_in_progress"
    ? new ApiError(code, {
        message: `At most ${MAX_ACTIVE_EVALUATIONS} evaluations may be queued, running or paused at once; wait for one to finish or cancel one.`,
      })
    : new ApiError(code, {
        message: `Stored evaluations may hold at most ${MAX_STORED_EVALUATION_BYTES / 1024 / 1024} MiB of items; delete some or wait for them to expire.`,
      });
}

/**
 * createEvaluation: size (413), content type (400), strict JSON (400), then the body (422 / 404 / 413), then
 * the key's requests per minute (429 `requests_per_minute`), then the account's caps (429
 * `evaluations_in_progress`, 409 `evaluation_storage_full`).
 */
export async function createEvaluationResponse(
  c: Context<AppEnv>,
  owner: EvaluationOwner,
): Promise<Response> {
  const bytes = await readBodyLimited(c.req.raw);
  checkContentType(c.req.header("content-type"), bytes.byteLength);
  const v = validateEvaluationBody(parseJsonBody(bytes));
  const now = Date.now();
  const id = `eval_${ulid(now)}`;
  if (owner.subject) await c.var.limits.takeRequest(owner.subject, id, now);
  const items = v.items.map((item, idx) => ({
    idx,
    request: item.requestText,
    expected: item.expectedText,
    ...item.tokens,
  }));
  const stored = items.reduce(
    (n, i) => n + utf8.encode(i.request).byteLength + utf8.encode(i.expected).byteLength,
    0,
  );
  const row = await insertEvaluation(
    c.var.db,
    {
      id,
      accountId: owner.accountId,
      keyId: owner.keyId,
      name: v.name,
      model: v.model.version.id,
      expiresAt: now + RETENTION_DAYS * DAY_MS,
      bytes: stored,
    },
    items,
    { active: MAX_ACTIVE_EVALUATIONS, bytes: MAX_STORED_EVALUATION_BYTES },
  );
  if (typeof row === "string") throw capError(row);
  inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json(evaluationJson(row), 201);
}

/** listEvaluations: newest first, `limit` 1–100 (default 20), `starting_after` an evaluation id. */
export async function listEvaluationsResponse(c: Context<AppEnv>, owner: EvaluationOwner): Promise<Response> {
  const q = queryOf(c, ["limit", "starting_after"]);
  const limit = intParam(q, "limit", 1, 100, 20);
  const after = q.get("starting_after") ?? null;
  if (after !== null && !EVALUATION_ID_PATTERN.test(after))
    throw new ApiError("invalid_value", {
      param: "starting_after",
      message: "`starting_after` is an evaluation id.",
    });
  const page = await listEvaluations(c.var.db, owner.accountId, limit, after);
  return c.json(
    { object: "list" as const, data: page.data.map(evaluationJson), has_more: page.hasMore },
    200,
  );
}

async function owned(c: Context<AppEnv>, owner: EvaluationOwner): Promise<EvaluationRow> {
  const id = c.req.param("id") ?? "";
  const row = EVALUATION_ID_PATTERN.test(id) ? await findEvaluation(c.var.db, owner.accountId, id) : null;
  if (!row) throw notFound(id);
  return row;
}

/** A run that should be working but has not moved lately (e.g. after a restart) is kicked by this read. */
function stalled(e: EvaluationRow, now: number): boolean {
  if (e.status === "paused") return e.resumesAt !== null && e.resumesAt <= now;
  return (e.status === "running" || e.status === "queued") && now - e.updatedAt > STALL_MS;
}

/** getEvaluation. */
export async function getEvaluationResponse(c: Context<AppEnv>, owner: EvaluationOwner): Promise<Response> {
  const row = await owned(c, owner);
  if (stalled(row, Date.now())) inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json(evaluationJson(row), 200);
}

/** cancelEvaluation: queued, running or paused → cancelled; a finished evaluation is answered as it is. */
export async function cancelEvaluationResponse(
  c: Context<AppEnv>,
  owner: EvaluationOwner,
): Promise<Response> {
  const id = (await owned(c, owner)).id;
  const row = await cancelEvaluation(c.var.db, owner.accountId, id);
  if (!row) throw notFound(id);
  inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json(evaluationJson(row), 200);
}

/** deleteEvaluation: the evaluation, its items and answers, at once (a running one stops). */
export async function deleteEvaluationResponse(
  c: Context<AppEnv>,
  owner: EvaluationOwner,
): Promise<Response> {
  const id = (await owned(c, owner)).id;
  if (!(await deleteEvaluation(c.var.db, owner.accountId, id))) throw notFound(id);
  inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json({ id, object: "evaluation" as const, deleted: true as const }, 200);
}

/** An item as JSON text: its state, questions and expected labels as sent, and the Decision it got (or null). */
function itemJson(item: ItemRow): string {
  let decision = "null";
  if (item.answers && item.attempt) {
    const stored = JSON.parse(item.answers) as {
      model: string;
      answers: Parameters<typeof decisionJson>[0]["answers"];
    };
    decision = decisionJson({
      id: item.attempt,
      created: Math.floor((item.scoredAt ?? 0) / 1000),
      model: stored.model,
      served_by: "gpu",
      calibration: item.calibration ?? "",
      answers: stored.answers,
      usage: {
        input_tokens: item.inputTokens,
        state_tokens: item.stateTokens,
        question_tokens: item.questionTokens,
        charge_micro_cents: 0,
        unit_price_micro_cents: 0,
        tier: "test",
      },
    });
  }
  const request = item.request.slice(1, -1);
  return `{"object":"evaluation_item","index":${item.idx},${request},"expected":${item.expected},"decision":${decision}}`;
}

/** listEvaluationItems: upload order, `limit` 1–1000 (default 100), `starting_after` an item index. */
export async function listItemsResponse(c: Context<AppEnv>, owner: EvaluationOwner): Promise<Response> {
  const q = queryOf(c, ["limit", "starting_after"]);
  const limit = intParam(q, "limit", 1, 1000, 100);
  const after = intParam(q, "starting_after", 0, 999_999, -1);
  const e = await owned(c, owner);
  const items = await listItems(c.var.db, e.id, after + 1, limit + 1);
  const data = items.slice(0, limit).map(itemJson);
  c.header("content-type", "application/json");
  return c.body(`{"object":"list","data":[${data.join(",")}],"has_more":${items.length > limit}}`, 200);
}
