import type { TokenCounts, Usage } from "../../schema/decide";
import { UNIT_PRICE_MICRO_CENTS } from "../../schema/pricing";
import type { Services } from "../context/services";
import { ApiError } from "../errors";
import { errorText, logEvent } from "../observability/log";

/** A charge taken in step 9; `refund` is the exact inverse (idempotent). */
export interface Charge {
  usage: Usage;
  refund(): Promise<void>;
}

/**
 * Step 9: debits the exact charge (billing rule 1) in one atomic step of the account's ledger.
 * Test keys cost 0 with tier `test` and never touch the ledger. Throws 402 with the balance and the
 * required amount, or 503 `billing_unavailable` when the ledger cannot be reached.
 */
export async function takeCharge(
  services: Pick<Services, "ledger" | "refundIntents">,
  accountId: string,
  mode: "live" | "test",
  requestId: string,
  tokens: TokenCounts,
): Promise<Charge> {
  if (mode === "test") {
    return {
      usage: { ...tokens, charge_micro_cents: 0, unit_price_micro_cents: 0, tier: "test" },
      refund: async () => {},
    };
  }
  const amount = tokens.input_tokens * UNIT_PRICE_MICRO_CENTS;
  const ledger = services.ledger(accountId);
  let res: Awaited<ReturnType<typeof ledger.debit>>;
  try {
    res = await ledger.debit({
      request_id: requestId,
      account_id: accountId,
      tokens: tokens.input_tokens,
      amount_micro_cents: amount,
      test: false,
    });
  } catch (err) {
    logEvent("error", "ledger_unreachable", { request_id: requestId, error: errorText(err) });
    // The debit may have landed before the connection broke; the refund is a no-op when it did not, and is
    // left to the ledger's next alarm (a Postgres intent) when the ledger cannot take it now.
    await ledger
      .refund(requestId)
      .catch(() => services.refundIntents.record(accountId, requestId))
      .catch((e) =>
        logEvent("error", "refund_failed", { alert: true, request_id: requestId, error: errorText(e) }),
      );
    throw new ApiError("billing_unavailable", {
      message: "Billing is temporarily unavailable.",
    });
  }
  if (!res.ok && "superseded" in res)
    throw new ApiError("idempotency_in_progress", { param: "idempotency-key" });
  if (!res.ok) {
    throw new ApiError("insufficient_balance", {
      message: "The balance does not cover this request.",
      extra: { balance_micro_cents: res.balance, required_micro_cents: res.required },
    });
  }
  let refunded: Promise<void> | null = null;
  // Inside the plan's allowance a request costs nothing from the balance: unit price 0, charge 0 (rule 1 holds).
  const unitPrice = res.allowance_tokens === tokens.input_tokens ? 0 : UNIT_PRICE_MICRO_CENTS;
  return {
    usage: {
      ...tokens,
      charge_micro_cents: tokens.input_tokens * unitPrice,
      unit_price_micro_cents: unitPrice,
      tier: res.tier,
    },
    refund() {
      // Retried once (idempotent by request id); if the ledger is still unreachable, the refund is recorded in
      // Postgres and the ledger applies it at its next alarm, so the charge of a failed call is never kept.
      refunded ??= ledger
        .refund(requestId)
        .catch(() => ledger.refund(requestId))
        .catch(async (err) => {
          logEvent("warn", "refund_deferred", { request_id: requestId, error: errorText(err) });
          await services.refundIntents.record(accountId, requestId);
        })
        .then(() => undefined);
      return refunded;
    },
  };
}
