import { withNodeClient } from "../scripts/stack/neon-node";
import type { SeedAccountOptions, SeededAccount } from "../scripts/stack/seed";
import { seedAccount } from "../scripts/stack/seed";
import { send } from "./client";

/** A soak account: its keys, and every credit the harness made to it (each counted once, per response). */
export interface SoakAccount {
  name: string;
  accountId: string;
  live: string[];
  test: string[];
  credits: Array<{ paymentId: string; amount: number; duplicate: boolean; status: number }>;
}

/**
 * Payment ids are unique across runs: Postgres keeps one journal row per (kind, ref) over all accounts, so a
 * run on a database that outlives it must not reuse an earlier run's ids.
 */
export const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

/** Micro-cents per euro (1 cent = 1,000,000 micro-cents). */
export const EUR = 100_000_000;

const PLANS: Array<{ name: string; opening: number; seed: SeedAccountOptions }> = [
  // Plenty of money: most of its calls reach the model.
  { name: "rich", opening: 50 * EUR, seed: { keys: [{ mode: "live" }, { mode: "test" }] } },
  // Two live keys and a test key on one balance.
  {
    name: "team",
    opening: 20 * EUR,
    seed: { keys: [{ mode: "live" }, { mode: "live" }, { mode: "test" }] },
  },
  // A few calls' worth: most calls get 402 until the next top-up.
  { name: "poor", opening: 600, seed: { keys: [{ mode: "live" }] } },
  // Tight rate limits: most calls get 429.
  {
    name: "limited",
    opening: 10 * EUR,
    seed: { rpmLimit: 40, tpmLimit: 4_000, keys: [{ mode: "live" }, { mode: "test", rpmLimit: 20 }] },
  },
];

/** Seeds the soak accounts in Postgres and credits their opening balances through the operator route. */
export async function seedSoakAccounts(
  db: { url: string; wsProxy: string },
  baseUrl: string,
  adminToken: string,
): Promise<SoakAccount[]> {
  const accounts: SoakAccount[] = [];
  for (const plan of PLANS) {
    const seeded: SeededAccount = await withNodeClient(db.url, { wsProxy: db.wsProxy }, (q) =>
      seedAccount(q, plan.seed),
    );
    const account: SoakAccount = {
      name: plan.name,
      accountId: seeded.accountId,
      live: seeded.keys.filter((k) => k.mode === "live").map((k) => k.secret),
      test: seeded.keys.filter((k) => k.mode === "test").map((k) => k.secret),
      credits: [],
    };
    await credit(baseUrl, adminToken, account, plan.opening, `soak_open_${RUN_ID}_${plan.name}`);
    if (account.credits[0]?.status !== 200) throw new Error(`opening credit of ${plan.name} failed`);
    accounts.push(account);
  }
  return accounts;
}

/**
 * A top-up through the operator route (`POST /internal/ledger/credit`), recorded with its answer (the checker
 * counts a credit once when it answered 200 and not `duplicate`, and fails on any other answer).
 */
export async function credit(
  baseUrl: string,
  adminToken: string,
  account: SoakAccount,
  amount: number,
  paymentId: string,
): Promise<void> {
  const res = await send(`${baseUrl}/internal/ledger/credit`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      account_id: account.accountId,
      amount_micro_cents: amount,
      payment_id: paymentId,
    }),
  });
  const duplicate = (res.json as { duplicate?: boolean } | undefined)?.duplicate === true;
  account.credits.push({ paymentId, amount, duplicate, status: res.status });
}
