import { withNodeClient } from "../../scripts/stack/neon-node";
import { seedAccount } from "../../scripts/stack/seed";
import type { ServicesEnv } from "../../scripts/stack/services";

/** Secrets the bench Workers are started with. */
export const BENCH_GPU_SECRET = "bench-gpu-secret";
export const BENCH_ADMIN_TOKEN = "bench-admin-token-0001";

/**
 * An account with one live key and limits no benchmark reaches, credited with EUR 10,000 through the
 * operator route; returns the key's request headers.
 */
export async function fundedAccountHeaders(
  env: ServicesEnv,
  edgeUrl: string,
): Promise<Record<string, string>> {
  return (await fundedAccount(env, edgeUrl)).headers;
}

/** `fundedAccountHeaders`, with the account's id. */
export async function fundedAccount(
  env: ServicesEnv,
  edgeUrl: string,
): Promise<{ accountId: string; headers: Record<string, string> }> {
  const acct = await withNodeClient(env.DATABASE_URL, { wsProxy: env.NEON_WS_PROXY }, (q) =>
    seedAccount(q, { rpmLimit: 1_000_000, tpmLimit: 1_000_000_000, keys: [{ mode: "live" }] }),
  );
  await fetch(`${edgeUrl}/internal/ledger/credit`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ account_id: acct.accountId, amount_micro_cents: 1e12, payment_id: "bench" }),
  });
  return {
    accountId: acct.accountId,
    headers: { authorization: `Bearer ${acct.keys[0]!.secret}`, "content-type": "application/json" },
  };
}
