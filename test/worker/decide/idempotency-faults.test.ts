import { env as cfEnv } from "cloudflare:test";
import { Redis } from "@upstash/redis";
import { describe, expect, it } from "vitest";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { sha256Hex } from "../../../schema/hex";
import { createApp } from "../../../workers/app";
import { takeCharge } from "../../../workers/billing/charge";
import type { Engine } from "../../../workers/clients/engine";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import type { AdmissionStore } from "../../../workers/stores/admission";
import { type IdempotencyRecord, RUNNING_LEASE_MS, recordKey } from "../../../workers/stores/idempotency";
import { StoreUnavailableError } from "../../../workers/stores/redis";
import { decideWithKey, FUNDS, fundedLiveAccount, lapseRecord } from "../../support/idempotency";
import { uniformScore } from "../../support/uniform-engine";
import { expectError } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL!, token: env.UPSTASH_REDIS_REST_TOKEN! });

/** A GPU stand-in that answers every question uniformly. */
const engine = { dispatch: async (req: ScoreRequest) => uniformScore(req) } as unknown as Engine;

/** The real app with the GPU stand-in; `failCompletion` makes Redis refuse the record's `completed` write. */
function app(failCompletion = false) {
  return createApp((e) => {
    const real = buildServices(e);
    const admission = Object.create(real.admission) as AdmissionStore;
    admission.leave = (subject, record, input) =>
      failCompletion && input.record?.next?.status === "completed"
        ? Promise.reject(new StoreUnavailableError("completion write refused (injected)"))
        : real.admission.leave(subject, record, input);
    return { ...real, admission, engine };
  });
}

describe("'idempotency never charges twice' when the completion write fails or the lease lapses", () => {
  it("completed write refused → retries get 409 while the lease runs, then the original replayed from the ledger, charged once", async () => {
    const { ledger, key } = await fundedLiveAccount();
    const first = await decideWithKey(app(true), key.secret, "k-lost-completion");
    expect(first.status).toBe(200);
    const original = (await first.json()) as { id: string; usage: { charge_micro_cents: number } };
    const after = (await ledger.balance()).balance_micro_cents;
    expect(after).toBe(FUNDS - original.usage.charge_micro_cents);

    await expectError(
      await decideWithKey(app(), key.secret, "k-lost-completion"),
      409,
      "idempotency_in_progress",
      "idempotency-key",
    );
    await lapseRecord(key.id, "k-lost-completion");
    for (let i = 0; i < 2; i++) {
      const retry = await decideWithKey(app(), key.secret, "k-lost-completion");
      expect(retry.status).toBe(200);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      const body = (await retry.json()) as { id: string; usage: unknown };
      expect(body.id).toBe(original.id);
      expect(body.usage).toEqual(original.usage);
    }
    expect((await ledger.balance()).balance_micro_cents).toBe(after);
  });

  it("an owner that was debited and never recorded an answer is refunded when a retry takes its lapsed record over", async () => {
    const { acct, ledger, key } = await fundedLiveAccount();
    const services = buildServices(env);
    const owner = "req_01JDLAPSEDOWNER00000000000";
    const charge = await takeCharge(services, acct.accountId, "live", owner, {
      input_tokens: 100,
      state_tokens: 90,
      question_tokens: 10,
    });
    const k = recordKey(key.id, await sha256Hex("k-crashed"));
    const stalled: IdempotencyRecord = {
      key_id: key.id,
      key_hash: await sha256Hex("k-crashed"),
      fingerprint: "whatever",
      status: "running",
      owner,
      created_at: Date.now() - RUNNING_LEASE_MS - 5_000,
      updated_at: Date.now() - RUNNING_LEASE_MS - 5_000,
    };
    await redis.set(k, stalled, { px: 60_000 });

    const retry = await decideWithKey(app(), key.secret, "k-crashed");
    expect(retry.status).toBe(200);
    const body = (await retry.json()) as { id: string; usage: { charge_micro_cents: number } };
    expect(body.id).not.toBe(owner);
    expect((await ledger.balance()).balance_micro_cents).toBe(FUNDS - body.usage.charge_micro_cents);
    expect(charge.usage.charge_micro_cents).toBeGreaterThan(0);
  });
});

describe("the admission scripts run by SHA-1 (EVALSHA), their text sent only when Redis lacks them", () => {
  it("a Redis that lost its scripts (SCRIPT FLUSH, as after a restart) still admits, completes and replays, charged once", async () => {
    const { key, spent } = await fundedLiveAccount();
    const first = await decideWithKey(app(), key.secret, "k-noscript");
    expect(first.status).toBe(200);
    const original = (await first.json()) as { id: string; usage: { charge_micro_cents: number } };
    await redis.scriptFlush();
    const replay = await decideWithKey(app(), key.secret, "k-noscript");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replay.json()) as { id: string }).id).toBe(original.id);
    await redis.scriptFlush();
    const next = await decideWithKey(app(), key.secret, "k-noscript-2");
    expect(next.status).toBe(200);
    expect(await spent()).toBe(original.usage.charge_micro_cents * 2);
  });
});
