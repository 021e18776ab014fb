import type { Env } from "../env";
import { database } from "../stores/db";
import { noteSignal } from "../stores/ops-signals";
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

const METHODS = [
  "debit",
  "refund",
  "credit",
  "chargeback",
  "balance",
  "applyRefundIntents",
  "keepCompletion",
  "settleLapsed",
  "setPlanAllowance",
  "refillWeekAllowance",
] as const satisfies readonly (keyof Ledger)[];

/**
 * How an account's ledger is reached: one Durable Object per account, named by the account id. Every failed
 * call is counted for the ledger-errors alert (docs/operations.md) and rethrown unchanged.
 */
export function ledgerStub(
  env: Pick<Env, "LEDGER" | "DATABASE_URL" | "NEON_WS_PROXY" | "NEON_HTTP_ENDPOINT">,
  accountId: string,
): Ledger {
  const stub = env.LEDGER.get(env.LEDGER.idFromName(accountId));
  const counted = {} as Record<string, unknown>;
  for (const name of METHODS) {
    counted[name] = (...args: unknown[]) =>
      (stub[name] as (...a: unknown[]) => Promise<unknown>)(...args).catch((err: unknown) => {
        void noteSignal(database(env), "ledger_error");
        throw err;
      });
  }
  return counted as unknown as Ledger;
}
