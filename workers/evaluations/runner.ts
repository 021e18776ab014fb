import { monotonicFactory } from "ulid";
import type { ScoreResponse } from "../../schema/engine-protocol";
import { readJsonText } from "../../schema/json-text";
import type { Dispatched, DispatchOptions } from "../clients/engine";
import { BACKOFF_MS, type NextRun, nextUtcMidnight, SLICE_MS } from "../clients/runner";
import { validateDecideRequest } from "../decide/validate";
import { ApiError } from "../errors";
import { errorText, logEvent } from "../observability/log";
import type { Database, DbEnv } from "../stores/db";
import {
  commitItem,
  type ItemRow,
  markUsageRecorded,
  pendingItems,
  scoredItems,
  unrecordedItems,
} from "../stores/evaluation-items";
import type { EvaluationQuota, QuotaTaken } from "../stores/evaluation-quota";
import {
  finishEvaluation,
  markFailed,
  markPaused,
  markRunning,
  nextActive,
  touch,
} from "../stores/evaluation-runs";
import type { EvaluationRow } from "../stores/evaluations";
import { recordUsageEvents, type UsageEvent } from "../stores/usage";
import { type Expected, evaluationMetrics } from "./metrics";
import { renderItem } from "./render";

/** Items of one account scored at the same time (issue 31: at most 2). */
export const ITEMS_AT_ONCE = 2;
/** A GPU fault (500) on the same item this many times in a row fails the run. */
export const MAX_FAULTS = 5;

const nextUlid = monotonicFactory();

/** What the runner works with: Postgres, the engine's dispatch, the test quota. */
export interface RunnerDeps {
  db: Database;
  /** For the usage events (the same exactly-once write as decide's). */
  env: DbEnv;
  engine: {
    dispatch(
      req: import("../../schema/engine-protocol").ScoreRequest,
      o: DispatchOptions,
    ): Promise<Dispatched>;
  };
  quota: Pick<EvaluationQuota, "take" | "giveBack">;
  now?: () => number;
}

/** What the runner remembers between alarms (the Durable Object's storage). */
export interface RunnerMemory {
  /** Consecutive failed attempts (any cause) and GPU faults on the current item. */
  failures: number;
  faults: number;
}

type Outcome =
  | { kind: "scored" }
  | { kind: "dropped" }
  | { kind: "quota" }
  | { kind: "retry"; fault: boolean; error: unknown };

/** The usage event of a scored item: test usage under the creating key (or the console), charged 0. */
export function itemUsageEvent(e: EvaluationRow, item: ItemRow): UsageEvent {
  return {
    request_id: item.attempt!,
    account_id: e.accountId,
    key_id: e.keyId,
    mode: "test",
    model: e.model,
    served_by: "gpu",
    input_tokens: item.inputTokens,
    state_tokens: item.stateTokens,
    question_tokens: item.questionTokens,
    charge_micro_cents: 0,
    unit_price_micro_cents: 0,
    tier: "test",
    status: 200,
    error_code: null,
    replayed: false,
    at: item.scoredAt ?? Date.now(),
    client_request_id: null,
    client_name: "svc-evaluations",
    client_version: null,
  };
}

/** Writes the usage events of scored items not yet recorded (idempotent by request id), then marks them. */
async function recordUsage(deps: RunnerDeps, e: EvaluationRow): Promise<void> {
  const items = await unrecordedItems(deps.db, e.id);
  if (items.length === 0) return;
  await recordUsageEvents(
    deps.env,
    items.map((i) => itemUsageEvent(e, i)),
  );
  await markUsageRecorded(
    deps.db,
    e.id,
    items.map((i) => i.idx),
  );
}

/** Recomputes an evaluation's metrics from its stored answers. */
export async function metricsOf(db: Database, id: string) {
  const rows = await scoredItems(db, id);
  return evaluationMetrics(
    rows
      .filter((r) => r.answers !== null)
      .map((r) => ({
        answers: (JSON.parse(r.answers!) as ScoreResponse).answers,
        expected: JSON.parse(r.expected) as Record<string, Expected>,
      })),
  );
}

/** One item through the same engine call as a decide: quota, dispatch (GPU only), then the one counted write. */
async function scoreItem(deps: RunnerDeps, e: EvaluationRow, item: ItemRow): Promise<Outcome> {
  const now = deps.now?.() ?? Date.now();
  let taken: QuotaTaken | null;
  try {
    taken = await deps.quota.take(e.accountId, item.inputTokens, now);
  } catch (error) {
    return { kind: "retry", fault: false, error };
  }
  if (!taken) return { kind: "quota" };
  const attempt = `req_${nextUlid()}`;
  try {
    const request = { ...validateDecideRequest(readJsonText(item.request)), model: e.model };
    const out = await deps.engine.dispatch(renderItem(request, e.model, attempt), {
      fallback: null,
      tokens: item.inputTokens,
    });
    const answers = JSON.stringify({ model: out.result.model, answers: out.result.answers });
    const counted = await commitItem(deps.db, e.id, item.idx, {
      attempt,
      answers,
      calibration: out.result.calibration,
      scoredAt: deps.now?.() ?? Date.now(),
    });
    if (!counted) {
      await deps.quota.giveBack(e.accountId, taken).catch(() => {});
      return { kind: "dropped" };
    }
    return { kind: "scored" };
  } catch (error) {
    await deps.quota.giveBack(e.accountId, taken).catch(() => {});
    const fault = error instanceof ApiError && error.status === 500;
    return { kind: "retry", fault, error };
  }
}

/**
 * Works on the account's evaluations for one slice: the running one (else a paused one whose quota is back,
 * else the oldest queued), `ITEMS_AT_ONCE` items at a time, until the slice ends, the quota runs out (paused
 * until 00:00 UTC), a serving path fails (back off) or nothing is left. Every state change is in Postgres, so
 * a crash anywhere only repeats an uncounted item. Returns when to run again.
 */
export async function runSlice(
  deps: RunnerDeps,
  accountId: string,
  memory: RunnerMemory,
  sliceMs: number = SLICE_MS,
): Promise<NextRun> {
  const clock = () => deps.now?.() ?? Date.now();
  const end = clock() + sliceMs;
  for (;;) {
    const e = await nextActive(deps.db, accountId);
    if (!e) return null;
    if (e.status === "paused" && e.resumesAt !== null && e.resumesAt > clock()) return e.resumesAt;
    if (e.status !== "running") await markRunning(deps.db, e.id);
    await recordUsage(deps, e);
    for (;;) {
      if (clock() >= end) {
        await touch(deps.db, e.id);
        return clock();
      }
      const batch = await pendingItems(deps.db, e.id, ITEMS_AT_ONCE);
      if (batch.length === 0) break;
      const outcomes = await Promise.all(batch.map((item) => scoreItem(deps, e, item)));
      await recordUsage(deps, e);
      if (outcomes.some((o) => o.kind === "quota")) {
        const at = nextUtcMidnight(clock());
        await markPaused(deps.db, e.id, at);
        return at;
      }
      const failed = outcomes.filter((o) => o.kind === "retry");
      if (failed.length === 0) {
        memory.failures = 0;
        memory.faults = 0;
        continue;
      }
      memory.failures++;
      memory.faults = failed.some((o) => o.kind === "retry" && o.fault) ? memory.faults + 1 : 0;
      const first = failed[0] as Extract<Outcome, { kind: "retry" }>;
      logEvent("error", "evaluation_item_not_scored", {
        evaluation_id: e.id,
        error: first.error instanceof ApiError ? first.error.code : errorText(first.error),
      });
      if (memory.faults >= MAX_FAULTS) {
        await markFailed(deps.db, e.id, "internal_error", "The engine failed on an item repeatedly.");
        memory.failures = 0;
        memory.faults = 0;
        break;
      }
      await touch(deps.db, e.id);
      return clock() + BACKOFF_MS[Math.min(memory.failures, BACKOFF_MS.length) - 1]!;
    }
    // Nothing pending: finish it (when every item is counted); then the next evaluation, if any.
    const current = await nextActive(deps.db, accountId);
    if (current?.id === e.id && current.status === "running") {
      const finished =
        current.done === current.total &&
        (await finishEvaluation(deps.db, e.id, await metricsOf(deps.db, e.id)));
      if (!finished) return clock() + BACKOFF_MS[0]!;
    }
  }
}
