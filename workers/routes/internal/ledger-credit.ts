import { Hono } from "hono";
import { sha256Hex } from "../../../schema/canonical-json";
import { ApiError } from "../../errors";
import type { AppEnv } from "../../middleware/context";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const ACCOUNT_ID = /^acc_[0-9A-HJKMNP-TV-Z]{26}$/;

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Compares SHA-256 digests so neither the length nor the content of the token leaks through timing. */
async function adminAuthorized(header: string | undefined, token: string | undefined): Promise<boolean> {
  const sent = header ? BEARER.exec(header)?.[1] : undefined;
  if (!token || !sent) return false;
  return constantTimeEqual(await sha256Hex(sent), await sha256Hex(token));
}

/**
 * POST /internal/ledger/credit (operator / seed only; `authorization: Bearer <ADMIN_TOKEN>`): credits a
 * settled payment to an account's ledger, once per `payment_id`. Body
 * `{account_id, amount_micro_cents, payment_id}`; answers `{object:"ledger_credit", duplicate, balance_micro_cents}`.
 */
export const internalLedgerRoutes = new Hono<AppEnv>().post(
  "/internal/ledger/credit",
  async function credit(c) {
    if (!(await adminAuthorized(c.req.header("authorization"), c.env.ADMIN_TOKEN)))
      throw new ApiError("invalid_api_key", { message: "Admin token required." });
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new ApiError("invalid_json");
    }
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b.account_id !== "string" || !ACCOUNT_ID.test(b.account_id))
      throw new ApiError("invalid_value", { param: "account_id" });
    if (!Number.isSafeInteger(b.amount_micro_cents) || (b.amount_micro_cents as number) <= 0)
      throw new ApiError("invalid_value", { param: "amount_micro_cents" });
    if (typeof b.payment_id !== "string" || b.payment_id.length < 1 || b.payment_id.length > 255)
      throw new ApiError("invalid_value", { param: "payment_id" });
    const ledger = c.env.LEDGER.get(c.env.LEDGER.idFromName(b.account_id));
    const res = await ledger.credit({
      account_id: b.account_id,
      payment_id: b.payment_id,
      amount_micro_cents: b.amount_micro_cents as number,
    });
    return c.json({
      object: "ledger_credit",
      duplicate: res.duplicate,
      balance_micro_cents: res.balance_after,
    });
  },
);
