import type { Context } from "hono";
import type { ScoreRequest } from "../../schema/engine-protocol";
import type { JsonValue } from "../../schema/json";
import { ApiError } from "../errors";
import type { AppEnv } from "../middleware/context";
import { setRateLimitState } from "../middleware/rate-limit-headers";
import type { KeyRecord } from "../stores/keys";
import { StoreUnavailableError } from "../stores/redis";
import { recordUsageEvent, type UsageEvent } from "../stores/usage";
import { type Charge, type TokenCounts, takeCharge } from "./admission-charge";
import { replayDecision } from "./admission-replay";
import { decisionJson } from "./decision";
import { dispatch } from "./dispatch";
import { type IdempotencyHandle, idempotencyStep } from "./idempotency";
import { type Admission, admitCall, type MoneySubject, type RateLimitState } from "./rate-limits";
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

/** The limiter/ledger subject of a key. */
export function subjectOf(key: KeyRecord): MoneySubject {
  return {
    keyId: key.id,
    accountId: key.accountId,
    mode: key.mode,
    keyLimits: { rpm: key.rpmLimit ?? undefined, tpm: key.tpmLimit ?? undefined },
    accountLimits: { rpm: key.account.rpmLimit ?? undefined, tpm: key.account.tpmLimit ?? undefined },
  };
}

/** Hands the real remaining counts to the front door's header stamping. */
export function publishRateLimit(c: Context<AppEnv>, s: RateLimitState): void {
  setRateLimitState(c, {
    rpm: { limit: s.policy.rpm, remaining: s.remaining.rpm, resetSeconds: s.resetSeconds },
    tpm: { limit: s.policy.tpm, remaining: s.remaining.tpm, resetSeconds: s.resetSeconds },
  });
}

/** Runs `p` after the response (Workers `waitUntil`), or detached where there is no execution context. */
export function background(c: Context<AppEnv>, p: Promise<unknown>): void {
  const safe = p.catch((err) =>
    console.error("background task failed", err instanceof Error ? err.message : err),
  );
  try {
    c.executionCtx.waitUntil(safe);
  } catch {
    void safe;
  }
}

async function admitOrFailOpen(
  c: Context<AppEnv>,
  subject: MoneySubject,
  requestId: string,
  tokens: number,
  keyed: boolean,
): Promise<Admission | null> {
  try {
    return await admitCall(c.env, subject, requestId, tokens, Date.now(), (s) => publishRateLimit(c, s));
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err;
    // Limiter down: a keyed call already needed Redis; an unkeyed live call is still billed exactly by the
    // ledger, so it runs unlimited; a test call cannot have its free quota enforced, so it waits.
    console.error(`rate limiter unreachable request_id=${requestId}`);
    if (keyed || subject.mode === "test")
      throw new ApiError("billing_unavailable", {
        retryAfter: 5,
        message: "Billing is temporarily unavailable.",
      });
    return null;
  }
}

/** Steps 7–10 of POST /v1/decide, then the Decision; records a usage event for every outcome. */
export async function runMoneyPath(c: Context<AppEnv>, input: MoneyPathInput): Promise<Response> {
  const key = c.get("apiKey");
  const requestId = c.get("requestId");
  const subject = subjectOf(key);
  const event: UsageEvent = {
    request_id: requestId,
    account_id: key.accountId,
    key_id: key.id,
    mode: key.mode,
    model: input.resolved.version.id,
    served_by: null,
    ...input.tokens,
    charge_micro_cents: 0,
    unit_price_micro_cents: 0,
    tier: null,
    status: 500,
    error_code: "internal_error",
    replayed: false,
    at: Date.now(),
  };
  try {
    const res = await moneyPath(c, input, subject, requestId, event);
    event.status = 200;
    event.error_code = null;
    return res;
  } catch (err) {
    event.status = err instanceof ApiError ? err.status : 500;
    event.error_code = err instanceof ApiError ? err.code : "internal_error";
    throw err;
  } finally {
    if (c.env.DATABASE_URL) background(c, recordUsageEvent(c.env, event));
  }
}

async function moneyPath(
  c: Context<AppEnv>,
  input: MoneyPathInput,
  subject: MoneySubject,
  requestId: string,
  event: UsageEvent,
): Promise<Response> {
  const idem = await idempotencyStep(c.env, subject.keyId, input.idempotencyKey, input.body, requestId);
  if (idem.kind === "replay") {
    event.replayed = true;
    return replayDecision(c, input, subject, idem.original, event);
  }
  const handle: IdempotencyHandle | null = idem.kind === "new" ? idem.handle : null;
  let admission: Admission | null = null;
  let charge: Charge | null = null;
  try {
    admission = await admitOrFailOpen(c, subject, requestId, input.tokens.input_tokens, handle !== null);
    charge = await takeCharge(c.env, subject.accountId, subject.mode, requestId, input.tokens);
    const out = await dispatch(c.env, input.engineRequest, {
      fallback: subject.mode === "live" ? input.resolved.fallback : null,
    });
    const created = Math.floor(Date.now() / 1000);
    const original = {
      id: requestId,
      created,
      model: out.result.model,
      served_by: out.served_by,
      usage: charge.usage,
    };
    Object.assign(event, { model: original.model, served_by: out.served_by }, charge.usage);
    await handle?.complete(original);
    c.header("content-type", "application/json");
    return c.body(
      decisionJson({ ...original, calibration: out.result.calibration, answers: out.result.answers }),
      200,
    );
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 500;
    if (status >= 500) {
      // Refunds happen BEFORE the answer leaves: the charge, then the tpm tokens and the test quota.
      await charge
        ?.refund()
        .catch((e) =>
          console.error(`REFUND FAILED request_id=${requestId}: ${e instanceof Error ? e.message : e}`),
        );
      await admission?.refundTokens().catch(() => {});
      if (admission) publishRateLimit(c, admission.state);
      await handle?.fail();
    } else {
      // 402 / 429 keep no record; the tokens of a call refused by the balance were never billed.
      if (status === 402 && admission) {
        await admission.refundTokens().catch(() => {});
        publishRateLimit(c, admission.state);
      }
      await handle?.abandon();
    }
    throw err;
  } finally {
    await admission?.release();
  }
}
