import type Stripe from "stripe";
import { ulid } from "ulid";
import { sha256Hex } from "../../schema/hex";
import { ApiError } from "../errors";
import type { Database } from "../stores/db";
import { deletePendingTopUp, openTopUp, type TopUpRow, withAccountTopUps } from "../stores/top-ups";
import {
  type CheckoutAnswer,
  checkoutBase,
  isoFromUnix,
  lineItem,
  requireStripe,
  stripeUnavailable,
} from "./checkout-session";
import { inFirstDays, TOP_UP_CHECKOUT_TTL_SECONDS, topUpPrice, withinNewAccountCap } from "./top-up-rules";

/** A validated top-up request. */
export interface TopUpRequest {
  accountId: string;
  creditCents: number;
  returnUrl: string;
  returnPath: string | null;
  idempotencyKey: string | undefined;
  /** SHA-256 of the canonical body (same body = same fingerprint). */
  fingerprint: string;
  now?: number;
}

/** A top-up checkout: the answer, and whether it replays an earlier request with the same key. */
export interface TopUpCheckout {
  answer: CheckoutAnswer;
  replayed: boolean;
}

type Decision = { kind: "new"; row: TopUpRow } | { kind: "replay"; row: TopUpRow };

const answerOf = (row: TopUpRow): CheckoutAnswer => ({
  id: row.checkout_session_id!,
  object: "checkout_session",
  url: row.url!,
  amount_cents: row.credit_cents,
  currency: "EUR",
  expires_at: row.expires_at.toISOString(),
});

/**
 * Decides a top-up under the account's lock: idempotency (replay / 409), the currency rule (422), the
 * new-account cap over settled plus open top-ups (422), then records it `pending` before Stripe is asked.
 */
async function decide(db: Database, req: TopUpRequest, keySha256: string | null): Promise<Decision> {
  const now = req.now ?? Date.now();
  const decision = await withAccountTopUps(db, req.accountId, async (tx): Promise<Decision> => {
    if (keySha256) {
      const earlier = await tx.byIdempotencyKey(keySha256);
      if (earlier && earlier.request_sha256 !== req.fingerprint)
        throw new ApiError("idempotency_key_reused", { param: "idempotency-key" });
      if (earlier) return { kind: "replay", row: earlier };
    }
    const price = topUpPrice(tx.account.billing_currency, req.creditCents);
    if (!price)
      throw new ApiError("invalid_value", {
        param: "amount_cents",
        message: `Accounts billed in ${tx.account.billing_currency} buy the top-up packs of the plan list.`,
      });
    if (inFirstDays(tx.account.created_at.getTime(), now)) {
      if (!withinNewAccountCap(await tx.countedCents(), req.creditCents))
        throw new ApiError("top_up_limit_exceeded", { param: "amount_cents" });
    }
    const row: TopUpRow = {
      id: `top_${ulid()}`,
      account_id: req.accountId,
      ...price,
      status: "pending",
      checkout_session_id: null,
      url: null,
      request_sha256: req.fingerprint,
      expires_at: new Date(Math.floor(now / 1000) * 1000 + TOP_UP_CHECKOUT_TTL_SECONDS * 1000),
    };
    await tx.insert(row, { idempotency_key_sha256: keySha256, return_path: req.returnPath });
    return { kind: "new", row };
  });
  if (!decision) throw new ApiError("invalid_session", { message: "The account no longer exists." });
  return decision;
}

async function openSession(
  stripe: Stripe,
  req: TopUpRequest,
  row: TopUpRow,
): Promise<Stripe.Checkout.Session> {
  const euros = (row.credit_cents / 100).toFixed(2);
  return stripe.checkout.sessions.create(
    {
      ...checkoutBase({
        accountId: req.accountId,
        returnUrl: req.returnUrl,
        expiresAt: Math.floor(row.expires_at.getTime() / 1000),
        metadata: { kind: "top_up", top_up_id: row.id, account_id: req.accountId },
      }),
      mode: "payment",
      line_items: [lineItem(row.currency, row.price_minor, `svc credit EUR ${euros}`)],
      automatic_tax: { enabled: true },
      payment_intent_data: { metadata: { kind: "top_up", top_up_id: row.id } },
    },
    { idempotencyKey: row.id },
  );
}

/**
 * POST /v1/console/checkout-sessions: a Stripe Checkout Session for a top-up of `creditCents` (net EUR,
 * excluding VAT). Same idempotency key and body → the same session; a first request still waiting for Stripe
 * → 409 `idempotency_in_progress`. Stripe unreachable → 503 `maintenance` and the reservation is dropped.
 */
export async function createTopUpCheckout(
  deps: { db: Database; stripe: Stripe | null },
  req: TopUpRequest,
): Promise<TopUpCheckout> {
  const stripe = requireStripe(deps.stripe);
  const keySha256 = req.idempotencyKey === undefined ? null : await sha256Hex(req.idempotencyKey);
  const decision = await decide(deps.db, req, keySha256);
  if (decision.kind === "replay") {
    if (!decision.row.url) throw new ApiError("idempotency_in_progress", { param: "idempotency-key" });
    return { answer: answerOf(decision.row), replayed: true };
  }
  let session: Stripe.Checkout.Session;
  try {
    session = await openSession(stripe, req, decision.row);
  } catch (error) {
    await deletePendingTopUp(deps.db, decision.row.id);
    throw stripeUnavailable(error);
  }
  const opened = { id: session.id, url: session.url!, expires_at: new Date(session.expires_at * 1000) };
  await openTopUp(deps.db, decision.row.id, opened);
  return {
    answer: {
      ...answerOf({ ...decision.row, checkout_session_id: session.id, url: opened.url }),
      expires_at: isoFromUnix(session.expires_at),
    },
    replayed: false,
  };
}
