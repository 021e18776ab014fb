import type { Env } from "../env";
import type { AccountLedger } from "./account-ledger";

/** The RPC surface of an account's ledger as the Worker calls it. */
export type Ledger = Pick<
  DurableObjectStub<AccountLedger>,
  | "debit"
  | "refund"
  | "credit"
  | "chargeback"
  | "balance"
  | "applyRefundIntents"
  | "keepCompletion"
  | "settleLapsed"
  | "setPlanAllowance"
  | "refillWeekAllowance"
>;

/** How an account's ledger is reached: one Durable Object per account, named by the account id. */
export function ledgerStub(env: Pick<Env, "LEDGER">, accountId: string): Ledger {
  return env.LEDGER.get(env.LEDGER.idFromName(accountId));
}
