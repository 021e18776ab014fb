import { z } from "@hono/zod-openapi";
import { ACCOUNT_ID_PATTERN } from "../../../schema/ids";
import { resumeAfterCredit } from "../../batches/resume";
import { ApiError } from "../../errors";
import { MAX_OTHER_BODY_BYTES, readTextLimited } from "../../http/body";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

const LedgerCreditSchema = z.object({
  object: z.literal("ledger_credit"),
  duplicate: z.boolean(),
  balance_micro_cents: z.number().int(),
});

/**
 * POST /internal/ledger/credit (operator / seed only; `authorization: Bearer <ADMIN_TOKEN>`): credits a
 * settled payment to an account's ledger, once per `payment_id`. Body (at most 1 MiB, 413 beyond)
 * `{account_id, amount_micro_cents, payment_id}`; answers `{object:"ledger_credit", duplicate, balance_micro_cents}`.
 */
export const creditLedger = endpoint(
  {
    method: "post",
    path: "/internal/ledger/credit",
    operationId: "creditLedger",
    summary: "Credit a settled payment (operator)",
    auth: "admin-token",
    hidden: true,
    responses: { 200: jsonResponse("The credit, or the earlier one.", LedgerCreditSchema) },
    errors: ["body_too_large", "invalid_json", "invalid_value"],
  },
  async function creditLedgerHandler(c) {
    const text = await readTextLimited(c.req.raw, MAX_OTHER_BODY_BYTES);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError("invalid_json");
    }
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b.account_id !== "string" || !ACCOUNT_ID_PATTERN.test(b.account_id))
      throw new ApiError("invalid_value", { param: "account_id" });
    if (!Number.isSafeInteger(b.amount_micro_cents) || (b.amount_micro_cents as number) <= 0)
      throw new ApiError("invalid_value", { param: "amount_micro_cents" });
    if (typeof b.payment_id !== "string" || b.payment_id.length < 1 || b.payment_id.length > 255)
      throw new ApiError("invalid_value", { param: "payment_id" });
    const res = await c.var.ledger(b.account_id).credit({
      account_id: b.account_id,
      payment_id: b.payment_id,
      amount_micro_cents: b.amount_micro_cents as number,
    });
    if (c.var.db.configured) await resumeAfterCredit(c.env, c.var.db, b.account_id);
    return c.json(
      { object: "ledger_credit" as const, duplicate: res.duplicate, balance_micro_cents: res.balance_after },
      200,
    );
  },
);
