import { decodeTime } from "ulid";
import type { TokenCounts } from "../../schema/decide";
import type { ScoreRequest } from "../../schema/engine-protocol";
import type { JsonValue } from "../../schema/json";
import { type Charge, takeCharge } from "../billing/charge";
import { ApiError } from "../errors";
import { type Admission, type MoneySubject, type RateLimitState, subjectOf } from "../limits/key-limits";
import type { Services } from "../services";
import type { KeyRecord } from "../stores/keys";
import { StoreUnavailableError } from "../stores/redis";
import type { UsageEvent } from "../stores/usage";
import type { DecisionParts } from "./decision";
import { type IdempotencyHandle, idempotencyStep } from "./idempotency";
import { replayDecision } from "./replay";
import type { ResolvedModel } from "./resolve-model";

/** What the decide route hands to steps 7–10 after validation, rendering and token limits. */
export interface MoneyPathInput {
  /** Parsed body (for the idempotency fingerprint). */
  body: JsonValue;
  idempotencyKey: string | undefined;
  resolved: ResolvedModel;
  /** Rendered for the engine, `model` = the exact GPU version. */
  engineRequest: ScoreRequest;
  tokens: TokenCounts;
}

/** The services and the caller the money path works with; `onRateLimit` receives the real counts. */
export interface MoneyPathDeps
  extends Pick<Services, "limits" | "idempotency" | "ledger" | "refundIntents" | "engine"> {
  key: KeyRecord;
  requestId: string;
  onRateLimit(state: RateLimitState): void;
}

/** A served call: the Decision's parts, and whether it replays a completed original. */
export interface MoneyPathOutcome {
  decision: DecisionParts;
  replayed: boolean;
}

/**
 * Steps 7–10 of POST /v1/decide: idempotency (409 or a replay), rate limits (429), the charge (402), dispatch
 * (503/500) — every failure after the charge refunded before the error leaves. Fills `event` (the call's
 * usage event) with what happened; throws the spec's ApiError otherwise.
 */
export async function runMoneyPath(
  deps: MoneyPathDeps,
  input: MoneyPathInput,
  event: UsageEvent,
): Promise<MoneyPathOutcome> {
  const subject = subjectOf(deps.key);
  // 7. idempotency
  const idem = await idempotencyStep(
    deps.idempotency,
    subject.keyId,
    input.idempotencyKey,
    input.body,
    deps.requestId,
  );
  if (idem.kind === "replay") {
    event.replayed = true;
    return { decision: await replayDecision(deps, input, subject, idem.original, event), replayed: true };
  }
  const handle: IdempotencyHandle | null = idem.kind === "new" ? idem.handle : null;
  let admission: Admission | null = null;
  let charge: Charge | null = null;
  try {
    // 8. rate limits and quotas
    admission = await admitOrFailOpen(deps, subject, input.tokens.input_tokens, handle !== null);
    // 9. balance
    charge = await takeCharge(deps, subject.accountId, subject.mode, deps.requestId, input.tokens);
    // 10. dispatch
    const out = await deps.engine.dispatch(input.engineRequest, {
      fallback: subject.mode === "live" ? input.resolved.fallback : null,
    });
    const original = {
      id: deps.requestId,
      created: Math.floor(decodeTime(deps.requestId.slice("req_".length)) / 1000),
      model: out.result.model,
      served_by: out.served_by,
      usage: charge.usage,
    };
    Object.assign(event, { model: original.model, served_by: out.served_by }, charge.usage);
    await handle?.complete(original);
    return {
      decision: { ...original, calibration: out.result.calibration, answers: out.result.answers },
      replayed: false,
    };
  } catch (err) {
    await undo(deps, err, { handle, admission, charge });
    throw err;
  } finally {
    await admission?.release();
  }
}

/**
 * A failed call takes nothing: after a 5xx the charge, the tpm tokens and the test quota go back BEFORE the
 * answer leaves and the record becomes `failed`; a 402 gives back the tokens; 402 / 429 keep no record.
 */
async function undo(
  deps: MoneyPathDeps,
  err: unknown,
  taken: { handle: IdempotencyHandle | null; admission: Admission | null; charge: Charge | null },
): Promise<void> {
  const { handle, admission, charge } = taken;
  const status = err instanceof ApiError ? err.status : 500;
  if (status >= 500) {
    await charge
      ?.refund()
      .catch((e) =>
        console.error(`REFUND FAILED request_id=${deps.requestId}: ${e instanceof Error ? e.message : e}`),
      );
    await admission?.refundTokens().catch(() => {});
    if (admission) deps.onRateLimit(admission.state);
    await handle?.fail();
    return;
  }
  if (status === 402 && admission) {
    await admission.refundTokens().catch(() => {});
    deps.onRateLimit(admission.state);
  }
  await handle?.abandon();
}

async function admitOrFailOpen(
  deps: MoneyPathDeps,
  subject: MoneySubject,
  tokens: number,
  keyed: boolean,
): Promise<Admission | null> {
  try {
    return await deps.limits.admit(subject, deps.requestId, tokens, deps.onRateLimit);
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err;
    // Limiter down: a keyed call already needed Redis; an unkeyed live call is still billed exactly by the
    // ledger, so it runs unlimited; a test call cannot have its free quota enforced, so it waits.
    console.error(`rate limiter unreachable request_id=${deps.requestId}`);
    if (keyed || subject.mode === "test")
      throw new ApiError("billing_unavailable", {
        message: "Billing is temporarily unavailable.",
      });
    return null;
  }
}
