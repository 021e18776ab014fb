import { ulid } from "ulid";
import { EVALUATION_ID_PATTERN } from "../../schema/evaluations";
import { ApiError } from "../errors";
import type { PageQuery } from "../http/list-query";
import type { KeyRateLimiter, MoneySubject } from "../limits/key-limits";
import type { Database } from "../stores/db";
import { type ItemRow, listItems } from "../stores/evaluation-items";
import {
  type EvaluationRow,
  findEvaluation,
  insertEvaluation,
  cancelEvaluation as markCancelled,
  deleteEvaluation as removeEvaluation,
  listEvaluations as selectEvaluations,
} from "../stores/evaluations";
import type { ValidatedEvaluation } from "./validate";

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

/** What the evaluation operations use: the database, the rate limiter, the account runner's kick. */
export interface EvaluationDeps {
  db: Database;
  limits: KeyRateLimiter;
  /** Wakes the account's runner in the background (the answer never waits for it). */
  kick(accountId: string): void;
}

const notFound = (id: string) =>
  new ApiError("evaluation_not_found", { param: "id", message: `No evaluation \`${id}\` in this account.` });

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
 * createEvaluation of a validated body: the key's requests per minute (429 `requests_per_minute`), then the
 * account's caps (429 `evaluations_in_progress`, 409 `evaluation_storage_full`); the new evaluation, `queued`.
 */
export async function createEvaluation(
  deps: EvaluationDeps,
  owner: EvaluationOwner,
  v: ValidatedEvaluation,
): Promise<EvaluationRow> {
  const now = Date.now();
  const id = `eval_${ulid(now)}`;
  if (owner.subject) await deps.limits.takeRequest(owner.subject, id, now);
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
    deps.db,
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
  deps.kick(owner.accountId);
  return row;
}

/** listEvaluations: the account's evaluations newest first. */
export function listEvaluations(
  deps: EvaluationDeps,
  owner: EvaluationOwner,
  page: PageQuery,
): Promise<{ data: EvaluationRow[]; hasMore: boolean }> {
  return selectEvaluations(deps.db, owner.accountId, page.limit, page.after);
}

async function owned(deps: EvaluationDeps, owner: EvaluationOwner, id: string): Promise<EvaluationRow> {
  const row = EVALUATION_ID_PATTERN.test(id) ? await findEvaluation(deps.db, owner.accountId, id) : null;
  if (!row) throw notFound(id);
  return row;
}

/** A run that should be working but has not moved lately (e.g. after a restart) is kicked by this read. */
function stalled(e: EvaluationRow, now: number): boolean {
  if (e.status === "paused") return e.resumesAt !== null && e.resumesAt <= now;
  return (e.status === "running" || e.status === "queued") && now - e.updatedAt > STALL_MS;
}

/** getEvaluation (404 unless the account's). */
export async function getEvaluation(
  deps: EvaluationDeps,
  owner: EvaluationOwner,
  id: string,
): Promise<EvaluationRow> {
  const row = await owned(deps, owner, id);
  if (stalled(row, Date.now())) deps.kick(owner.accountId);
  return row;
}

/** cancelEvaluation: queued, running or paused → cancelled; a finished evaluation is answered as it is. */
export async function cancelEvaluation(
  deps: EvaluationDeps,
  owner: EvaluationOwner,
  id: string,
): Promise<EvaluationRow> {
  const found = (await owned(deps, owner, id)).id;
  const row = await markCancelled(deps.db, owner.accountId, found);
  if (!row) throw notFound(found);
  deps.kick(owner.accountId);
  return row;
}

/** deleteEvaluation: the evaluation, its items and answers, at once (a running one stops); its id. */
export async function deleteEvaluation(
  deps: EvaluationDeps,
  owner: EvaluationOwner,
  id: string,
): Promise<string> {
  const found = (await owned(deps, owner, id)).id;
  if (!(await removeEvaluation(deps.db, owner.accountId, found))) throw notFound(found);
  deps.kick(owner.accountId);
  return found;
}

/** listEvaluationItems: a page of the evaluation's items in upload order, after index `after` (-1: from the first). */
export async function listEvaluationItems(
  deps: EvaluationDeps,
  owner: EvaluationOwner,
  id: string,
  page: { limit: number; after: number },
): Promise<{ data: ItemRow[]; hasMore: boolean }> {
  const e = await owned(deps, owner, id);
  const items = await listItems(deps.db, e.id, page.after + 1, page.limit + 1);
  return { data: items.slice(0, page.limit), hasMore: items.length > page.limit };
}
