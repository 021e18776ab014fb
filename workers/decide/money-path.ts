import { decodeTime } from "ulid";
import { type Charge, takeCharge } from "../billing/charge";
import { ApiError } from "../errors";
import { type MoneySubject, subjectOf } from "../limits/key-limits";
import { errorText, logEvent } from "../observability/log";
import type { OriginalResult } from "../stores/idempotency";
import type { UsageEvent } from "../stores/usage";
import { enterCall, type Ticket } from "./admission";
import { calibrateAnswers } from "./calibration";
import { holdCall } from "./call-hold";
import type { MoneyPathDeps, MoneyPathInput, MoneyPathOutcome } from "./money-path-types";
import { replayDecision } from "./replay";

/**
 * Steps 7–10 of POST /v1/decide: idempotency and limits in one round trip (409, a replay, or 429), the charge
 * (402), dispatch (503/500) — every failure after the charge refunded before the error leaves — then one
 * round trip that completes the record and frees the slot. Fills `event` (the call's usage event) with what
 * happened; throws the spec's ApiError otherwise.
 */
export async function runMoneyPath(
  deps: MoneyPathDeps,
  input: MoneyPathInput,
  event: UsageEvent,
): Promise<MoneyPathOutcome> {
  const subject = subjectOf(deps.key);
  // 7–8. idempotency, then rate limits and quotas
  const entry = await enterCall(
    deps.admission,
    {
      subject,
      requestId: deps.requestId,
      tokens: input.tokens.input_tokens,
      idempotencyKey: input.idempotencyKey,
      body: input.body,
    },
    deps.onRateLimit,
  );
  if (entry.kind === "replay") return replay(deps, input, subject, entry.original, event);
  const ticket = entry.ticket;
  if (ticket.lapsedOwners.length > 0) {
    let kept: OriginalResult | null;
    try {
      kept = await settleLapsedOwners(deps, subject.accountId, ticket.lapsedOwners);
    } catch (err) {
      // The record keeps the owners for the next retry, which settles them before it may charge.
      await undo(deps, err, ticket, null, ticket.lapsedOwners);
      throw err;
    }
    if (kept) {
      await ticket.leave({ kind: "replayed", result: kept }).catch((e) =>
        logEvent("error", "replayed_record_not_written", {
          request_id: deps.requestId,
          error: errorText(e),
        }),
      );
      return replay(deps, input, subject, kept, event);
    }
  }
  let charge: Charge | null = null;
  try {
    // 9. balance
    charge = await takeCharge(deps, subject.accountId, subject.mode, deps.requestId, input.tokens);
    // 10. dispatch, holding the slot and the record while it runs
    const hold = holdCall(ticket, deps.clientSignal ? { client: deps.clientSignal } : {});
    const out = await deps.engine
      .dispatch(input.engineRequest, {
        fallback: subject.mode === "live" ? input.resolved.fallback : null,
        tokens: input.tokens.input_tokens,
        signal: hold.signal,
        ...(deps.gpuTrace && { trace: deps.gpuTrace }),
      })
      .finally(hold.release);
    const { answers, used } = calibrateAnswers(
      input.engineRequest.questions,
      out,
      input.calibrations,
      input.engineRequest.state,
    );
    const original: OriginalResult = {
      id: deps.requestId,
      created: Math.floor(decodeTime(deps.requestId.slice("req_".length)) / 1000),
      model: out.result.model,
      served_by: out.served_by,
      ...(out.numerics_class && { numerics_class: out.numerics_class }),
      usage: charge.usage,
      ...(Object.keys(used).length > 0 && { calibrations: used }),
    };
    Object.assign(event, { model: original.model, served_by: out.served_by }, charge.usage);
    await complete(deps, ticket, original);
    return {
      decision: {
        id: original.id,
        created: original.created,
        model: original.model,
        served_by: original.served_by,
        calibration: out.result.calibration,
        answers,
        usage: original.usage,
      },
      replayed: false,
    };
  } catch (err) {
    await undo(deps, err, ticket, charge);
    throw err;
  }
}

async function replay(
  deps: MoneyPathDeps,
  input: MoneyPathInput,
  subject: MoneySubject,
  original: OriginalResult,
  event: UsageEvent,
): Promise<MoneyPathOutcome> {
  event.replayed = true;
  return { decision: await replayDecision(deps, input, subject, original, event), replayed: true };
}

/**
 * A record whose owner's lease lapsed is being taken over: the completion kept by the ledger (the record's
 * completion write had failed) is replayed; every other earlier owner's debit, if any, is refunded, so the
 * retry is the only call charged. One ledger call; 503 with retry-after when the ledger cannot be reached.
 */
async function settleLapsedOwners(
  deps: MoneyPathDeps,
  accountId: string,
  owners: string[],
): Promise<OriginalResult | null> {
  try {
    const settled = await deps.ledger(accountId).settleLapsed(owners);
    return settled.completion ? (JSON.parse(settled.completion) as OriginalResult) : null;
  } catch (err) {
    logEvent("error", "lapsed_owners_not_settled", { request_ids: owners.join(","), error: errorText(err) });
    throw new ApiError("billing_unavailable");
  }
}

/**
 * Completes the record and frees the slot (one round trip). If Redis cannot take it, the completion is kept
 * by the ledger, so a retry that later takes the record over replays it instead of charging again.
 */
async function complete(deps: MoneyPathDeps, ticket: Ticket, original: OriginalResult): Promise<void> {
  try {
    await ticket.leave({ kind: "completed", result: original });
  } catch (err) {
    logEvent("error", "completion_not_written", { request_id: deps.requestId, error: errorText(err) });
    await deps
      .ledger(deps.key.accountId)
      .keepCompletion(deps.requestId, JSON.stringify(original))
      .catch((e) =>
        logEvent("error", "completion_lost", {
          alert: true,
          request_id: deps.requestId,
          error: errorText(e),
        }),
      );
  }
}

/**
 * A failed call takes nothing: after a 5xx the charge, the tpm tokens and the test quota go back BEFORE the
 * answer leaves and the record becomes `failed` (carrying `owed`, lapsed owners still to settle); a 402
 * gives back the tokens and keeps no record.
 */
async function undo(
  deps: MoneyPathDeps,
  err: unknown,
  ticket: Ticket,
  charge: Charge | null,
  owed: string[] = [],
): Promise<void> {
  const status = err instanceof ApiError ? err.status : 500;
  if (status >= 500)
    await charge
      ?.refund()
      .catch((e) =>
        logEvent("error", "refund_failed", { alert: true, request_id: deps.requestId, error: errorText(e) }),
      );
  await ticket
    .leave(status >= 500 ? { kind: "failed", owed } : { kind: "refused" })
    .catch((e) =>
      logEvent("error", "admission_not_released", { request_id: deps.requestId, error: errorText(e) }),
    );
  if (ticket.state) deps.onRateLimit(ticket.state);
}
