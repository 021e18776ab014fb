import { env as cfEnv } from "cloudflare:test";
import { Redis } from "@upstash/redis";
import { sha256Hex } from "../../schema/hex";
import type { Env } from "../../workers/env";
import { buildServices } from "../../workers/services";
import { type IdempotencyRecord, RUNNING_LEASE_MS, recordKey } from "../../workers/stores/idempotency";
import { bearer, seed, VALID_DECIDE } from "./worker-http";

const env = cfEnv as unknown as Env;
const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL!, token: env.UPSTASH_REDIS_REST_TOKEN! });

/** What the idempotency fault suites credit their live account with. */
export const FUNDS = 1_000_000_000;

/** POST /v1/decide with `idempotencyKey` on a test's own app (its services faulted as the test needs). */
export function decideWithKey(
  app: { request(path: string, init: RequestInit, env: Env): Response | Promise<Response> },
  secret: string,
  idempotencyKey: string,
): Promise<Response> {
  return Promise.resolve(
    app.request(
      "/v1/decide",
      {
        method: "POST",
        headers: { ...bearer(secret), "content-type": "application/json", "idempotency-key": idempotencyKey },
        body: VALID_DECIDE,
      },
      env,
    ),
  );
}

/** A live account with one key and FUNDS credited to its ledger; `spent()` is what it has paid since. */
export async function fundedLiveAccount() {
  const acct = await seed({ keys: [{ mode: "live" }] });
  const ledger = buildServices(env).ledger(acct.accountId);
  await ledger.credit({ account_id: acct.accountId, payment_id: "pay", amount_micro_cents: FUNDS });
  const spent = async () => FUNDS - (await ledger.balance()).balance_micro_cents;
  return { acct, ledger, key: acct.keys[0]!, spent };
}

/** Moves a `running` record's `updated_at` back past the lease, as if its owner had stalled that long. */
export async function lapseRecord(keyId: string, idempotencyKey: string): Promise<void> {
  const k = recordKey(keyId, await sha256Hex(idempotencyKey));
  const rec = await redis.get<IdempotencyRecord>(k);
  if (rec?.status !== "running") return;
  await redis.set(k, { ...rec, updated_at: Date.now() - RUNNING_LEASE_MS - 1_000 }, { px: 60_000 });
}
