import { monotonicFactory } from "ulid";
import type { ValidatedDecide } from "../../schema/decide";
import type { ScoreRequest } from "../../schema/engine-protocol";
import { readJsonText } from "../../schema/json-text";
import { renderForEngine } from "../../schema/render";
import { type Charge, takeCharge } from "../billing/charge";
import type { Dispatched, DispatchOptions } from "../clients/engine";
import type { GpuTrace } from "../clients/gpu-pool";
import type { Services } from "../context/services";
import { type CalibrationCaller, type CalibrationLookup, calibrateAnswers } from "../decide/calibration";
import { decisionJson } from "../decide/decision";
import { questionTallies } from "../decide/question-tally";
import { validateDecideRequest } from "../decide/validate";
import { ApiError } from "../errors";
import type { Ledger } from "../ledger/stub";
import type { MetricsDataset } from "../observability/metrics";
import { logRequestLine } from "../observability/request-line";
import { addLineFault, claimLine, clearOwed, commitLine, type LineOutcome } from "../stores/batch-lines";
import type { BatchRow } from "../stores/batch-rows";
import type { Database } from "../stores/db";
import type { EvaluationQuota, QuotaTaken } from "../stores/evaluation-quota";
import { errorOutcome, lineErrorCode, resultLine } from "./line-result";
import type { StoredLine } from "./validate-line";

/** An engine fault (500) on the same line this many times in a row finishes it with that error. */
export const MAX_LINE_FAULTS = 5;

const nextUlid = monotonicFactory();

/**
 * The tokens-per-minute windows a batch's lines take from (the creating key's and the account's, issue 50): true
 * when taken, the wait in ms, or null when the line exceeds a whole limit.
 */
export interface LineLimit {
  take(id: string, tokens: number, now: number): Promise<true | number | null>;
  giveBack(id: string, tokens: number): Promise<void>;
}

/** What a line runs with: the same ledger, engine and calibrations a decide uses, and the test quota. */
export interface LineDeps {
  db: Database;
  ledger: (accountId: string) => Ledger;
  refundIntents: Services["refundIntents"];
  engine: { dispatch(req: ScoreRequest, o: DispatchOptions): Promise<Dispatched> };
  calibrations: Pick<CalibrationLookup, "forRequest">;
  quota: Pick<EvaluationQuota, "take" | "giveBack">;
  /** The Analytics Engine dataset each line's data point goes to (as a decide's does). */
  metrics?: MetricsDataset;
  now?: () => number;
}

export type LineOutcomeKind =
  | { kind: "finished"; charged: boolean }
  /** The key's or the account's tokens per minute has no room for the line yet: try again at `at`. */
  | { kind: "tpm"; at: number }
  | { kind: "dropped" }
  | { kind: "balance" }
  | { kind: "quota" }
  | { kind: "retry"; fault: boolean; error: unknown };

/** A batch line's engine request: a decide's, at batch priority, GPU only. */
function renderLine(request: ValidatedDecide, stored: StoredLine, requestId: string, distributions: boolean) {
  const rendered = renderForEngine({ ...request, model: stored.model }, stored.model, requestId);
  // `batch`: the GPU worker serves live decides first; a live decide waits behind at most one batch chunk.
  return { ...rendered, priority: "batch" as const, ...(distributions && { distributions }) };
}

/**
 * One line through the money path of a decide: its earlier attempts settled (a debit a crashed attempt took is
 * refunded, and that attempt can never charge again), the test quota or the ledger's debit (402 pauses the batch,
 * never fails the line), dispatch to the GPU pool at batch priority, the account's calibrations, then ONE write
 * that stores the result and counts it. Every failure after the debit refunds it; a write that may have landed
 * is settled by the next attempt instead, so no path charges a line twice or keeps a charge without a result.
 * First of all the line takes its tokens from `limit`'s windows (issue 50): when they have no room yet it waits
 * (`tpm`, nothing claimed or charged); tokens of a line that does not finish charged are given back.
 */
export async function runLine(
  deps: LineDeps,
  b: BatchRow,
  caller: CalibrationCaller,
  limit: LineLimit | null,
  line: number,
  stored: StoredLine,
): Promise<LineOutcomeKind> {
  const now = deps.now?.() ?? Date.now();
  const attempt = `req_${nextUlid(now)}`;
  const tokens = stored.tokens.input_tokens;
  if (limit) {
    let taken: true | number | null;
    try {
      taken = await limit.take(attempt, tokens, now);
    } catch (error) {
      return { kind: "retry", fault: false, error };
    }
    if (taken === null) return refuseLine(deps, b, line, attempt, stored);
    if (taken !== true) return { kind: "tpm", at: now + taken };
  }
  const out = await runAdmitted(deps, b, caller, line, attempt, stored);
  // Only a line that finished charged keeps its tokens in the windows, as a decide that answered does.
  if (limit && !(out.kind === "finished" && out.charged))
    await limit.giveBack(attempt, tokens).catch(() => {});
  return out;
}

/** Gives the line to `attempt`, settling its earlier attempts first; null when it may go on. */
async function claim(
  deps: LineDeps,
  b: BatchRow,
  line: number,
  attempt: string,
): Promise<LineOutcomeKind | null> {
  try {
    const owed = await claimLine(deps.db, b.id, line, attempt);
    if (owed === null) return { kind: "dropped" };
    if (owed.length > 0) {
      if (b.mode === "live") await deps.ledger(b.accountId).settleLapsed(owed);
      await clearOwed(deps.db, b.id, line, owed);
    }
    return null;
  } catch (error) {
    return { kind: "retry", fault: false, error };
  }
}

/** A line no window can ever hold: it finishes, uncharged, with the 429 `tokens_per_minute` a decide answers. */
async function refuseLine(
  deps: LineDeps,
  b: BatchRow,
  line: number,
  attempt: string,
  stored: StoredLine,
): Promise<LineOutcomeKind> {
  const claimed = await claim(deps, b, line, attempt);
  if (claimed) return claimed;
  const err = new ApiError("tokens_per_minute", {
    message: "This line's tokens exceed the key's tokens per minute; it can never run under that limit.",
  });
  try {
    const outcome = errorOutcome(b, attempt, stored, err);
    if (await commitLine(deps.db, b.id, line, attempt, outcome))
      logLine(deps, b, attempt, outcome, { started: Date.now(), gpu: { attempts: 0, ms: 0 } });
    return { kind: "finished", charged: false };
  } catch (error) {
    return { kind: "retry", fault: false, error };
  }
}

/** The line after its tokens were admitted: claimed, then a decide's money path. */
async function runAdmitted(
  deps: LineDeps,
  b: BatchRow,
  caller: CalibrationCaller,
  line: number,
  attempt: string,
  stored: StoredLine,
): Promise<LineOutcomeKind> {
  const started = Date.now();
  const gpu: GpuTrace = { attempts: 0, ms: 0 };
  const claimed = await claim(deps, b, line, attempt);
  if (claimed) return claimed;
  let taken: QuotaTaken | null = null;
  if (b.mode === "test") {
    try {
      taken = await deps.quota.take(b.accountId, stored.tokens.input_tokens, deps.now?.() ?? Date.now());
    } catch (error) {
      return { kind: "retry", fault: false, error };
    }
    if (!taken) return { kind: "quota" };
  }
  const giveBack = () =>
    taken ? deps.quota.giveBack(b.accountId, taken).catch(() => {}) : Promise.resolve();
  let charge: Charge;
  try {
    charge = await takeCharge(deps, b.accountId, b.mode, attempt, stored.tokens);
  } catch (error) {
    await giveBack();
    if (error instanceof ApiError && error.code === "insufficient_balance") return { kind: "balance" };
    return { kind: "retry", fault: false, error };
  }
  let result: string;
  let outcome: Omit<LineOutcome, "status" | "result">;
  try {
    const request = validateDecideRequest(readJsonText(stored.body));
    const calibrations = await deps.calibrations.forRequest(caller, request, stored.model, b.mode);
    const engine = renderLine(request, stored, attempt, calibrations.size > 0);
    const out = await deps.engine.dispatch(engine, {
      fallback: null,
      tokens: stored.tokens.input_tokens,
      trace: gpu,
    });
    const { answers } = calibrateAnswers(engine.questions, out, calibrations, engine.state);
    const decision = decisionJson({
      id: attempt,
      created: Math.floor((deps.now?.() ?? Date.now()) / 1000),
      model: out.result.model,
      served_by: out.served_by,
      calibration: out.result.calibration,
      answers,
      usage: charge.usage,
    });
    result = resultLine(stored.custom_id, 200, "body", decision);
    outcome = {
      model: out.result.model,
      inputTokens: charge.usage.input_tokens,
      stateTokens: charge.usage.state_tokens,
      questionTokens: charge.usage.question_tokens,
      chargeMicroCents: charge.usage.charge_micro_cents,
      unitPrice: charge.usage.unit_price_micro_cents,
      tier: charge.usage.tier,
      questions: questionTallies(request, answers),
    };
  } catch (error) {
    await charge.refund();
    await giveBack();
    const fault = !(error instanceof ApiError) || error.status === 500;
    if (fault) return lineFault(deps, b, line, attempt, stored, error, { started, gpu });
    return { kind: "retry", fault: false, error };
  }
  try {
    const counted = await commitLine(deps.db, b.id, line, attempt, { status: 200, result, ...outcome });
    if (counted) {
      logLine(deps, b, attempt, { status: 200, ...outcome }, { started, gpu });
      return { kind: "finished", charged: true };
    }
    await charge.refund();
    await giveBack();
    return { kind: "dropped" };
  } catch (error) {
    // The write may have landed: the next attempt settles this one (refunded only if it was not counted).
    return { kind: "retry", fault: false, error };
  }
}

/** A fault on a line's attempt; the fifth in a row finishes the line with the error a decide would answer. */
async function lineFault(
  deps: LineDeps,
  b: BatchRow,
  line: number,
  attempt: string,
  stored: StoredLine,
  error: unknown,
  timing: LineTiming,
): Promise<LineOutcomeKind> {
  try {
    const faults = await addLineFault(deps.db, b.id, line);
    if (faults < MAX_LINE_FAULTS) return { kind: "retry", fault: true, error };
    const err = new ApiError("internal_error", { message: "The engine failed on this line repeatedly." });
    const outcome = errorOutcome(b, attempt, stored, err);
    if (await commitLine(deps.db, b.id, line, attempt, outcome)) logLine(deps, b, attempt, outcome, timing);
    return { kind: "finished", charged: false };
  } catch (e) {
    return { kind: "retry", fault: true, error: e };
  }
}

/** When a line's attempt started, and what its GPU calls took (the request line's `gpu_ms`, `gpu_attempts`). */
interface LineTiming {
  started: number;
  gpu: GpuTrace;
}

/** The line's request line (issue 43), as a decide's, at batch priority. */
function logLine(
  deps: LineDeps,
  b: BatchRow,
  attempt: string,
  o: Pick<LineOutcome, "status" | "model" | "inputTokens" | "chargeMicroCents">,
  { started, gpu }: LineTiming,
): void {
  logRequestLine(
    {
      request_id: attempt,
      route: "batchLine",
      status: o.status,
      error_code: lineErrorCode(o.status),
      key_id: b.keyId,
      account_id: b.accountId,
      mode: b.mode,
      model: o.model,
      served_by: o.status === 200 ? "gpu" : null,
      input_tokens: o.inputTokens,
      charge_micro_cents: o.chargeMicroCents,
      latency_ms: Date.now() - started,
      gpu_ms: gpu.attempts > 0 ? gpu.ms : null,
      gpu_attempts: gpu.attempts,
      idempotency: null,
      priority: "batch",
    },
    deps.metrics,
  );
}
