import { env as cfEnv } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { createApp } from "../../../workers/app";
import type { Engine } from "../../../workers/clients/engine";
import type { Env } from "../../../workers/env";
import type { Ledger } from "../../../workers/ledger/stub";
import { buildServices } from "../../../workers/services";
import type { AdmissionStore } from "../../../workers/stores/admission";
import { StoreUnavailableError } from "../../../workers/stores/redis";
import { decideWithKey, FUNDS, fundedLiveAccount, lapseRecord } from "../../support/idempotency";
import { uniformScore } from "../../support/uniform-engine";
import { expectError, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;

/** Faults one call meets (each defaults to off). */
interface Faults {
  /** Redis refuses the record's `completed` write (the completion is kept with the ledger instead). */
  lostCompletion?: boolean;
  /** The ledger cannot be reached when the call must settle a lapsed owner. */
  settleDown?: boolean;
  /** Redis refuses every other write after admission (the record is not released). */
  releaseDown?: boolean;
  /** The isolate dies after the debit: nothing after dispatch reaches Redis, the ledger or Postgres. */
  crash?: boolean;
}

class Crash extends Error {}

function engineFor(faults: Faults): Engine {
  return {
    async dispatch(req: ScoreRequest) {
      if (faults.crash) throw new Crash("isolate died (injected)");
      return uniformScore(req);
    },
  } as unknown as Engine;
}

const refused = (what: string) => Promise.reject(new StoreUnavailableError(`${what} refused (injected)`));

/** The real app (real Redis script, real ledger Durable Object) with the faults injected at the service seams. */
function app(faults: Faults = {}) {
  return createApp((e) => {
    const real = buildServices(e);
    const admission = Object.create(real.admission) as AdmissionStore;
    admission.leave = (subject, record, input) => {
      if (faults.crash) return refused("leave after crash");
      const completing = input.record?.next?.status === "completed";
      if (completing && faults.lostCompletion) return refused("completion write");
      if (!completing && faults.releaseDown) return refused("release");
      return real.admission.leave(subject, record, input);
    };
    const ledger = (accountId: string): Ledger =>
      new Proxy(real.ledger(accountId), {
        get(target, prop) {
          if (prop === "settleLapsed" && faults.settleDown)
            return () => Promise.reject(new Error("ledger unreachable (injected)"));
          if ((prop === "refund" || prop === "keepCompletion") && faults.crash)
            return () => Promise.reject(new Error("isolate died (injected)"));
          return (target as unknown as Record<string | symbol, unknown>)[prop];
        },
      });
    const refundIntents = Object.create(real.refundIntents) as typeof real.refundIntents;
    refundIntents.record = (accountId, requestId) =>
      faults.crash ? refused("refund intent") : real.refundIntents.record(accountId, requestId);
    return { ...real, admission, ledger, refundIntents, engine: engineFor(faults) };
  });
}

const decide = (faults: Faults, secret: string, key: string) => decideWithKey(app(faults), secret, key);

interface Served {
  id: string;
  replayed: boolean;
  charge: number;
}

async function served(res: Response): Promise<Served> {
  expect(res.status).toBe(200);
  const body = (await res.json()) as { id: string; usage: { charge_micro_cents: number } };
  const replayed = res.headers.get("idempotent-replayed") === "true";
  // The caller can tell: a fresh answer carries its own request id, a replay the original's.
  if (!replayed) expect(body.id).toBe(res.headers.get("x-request-id"));
  else expect(body.id).not.toBe(res.headers.get("x-request-id"));
  return { id: body.id, replayed, charge: body.usage.charge_micro_cents };
}

async function expectUnavailable(res: Response): Promise<void> {
  await expectError(res, 503, "billing_unavailable");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("'idempotency never charges twice': a lapsed owner is settled exactly once, whoever reaches the ledger", () => {
  it("completion kept by the ledger + lease lapsed + ledger down at takeover → 503 retry-after, then the original replayed, charged once", async () => {
    const { key, spent } = await fundedLiveAccount();
    const original = await served(await decide({ lostCompletion: true }, key.secret, "k-triple"));
    expect(original.replayed).toBe(false);
    await lapseRecord(key.id, "k-triple");

    await expectUnavailable(await decide({ settleDown: true }, key.secret, "k-triple"));
    for (let i = 0; i < 2; i++) {
      const retry = await served(await decide({}, key.secret, "k-triple"));
      expect(retry).toEqual({ ...original, replayed: true });
    }
    expect(await spent()).toBe(original.charge);
  });

  it("… and the takeover's own release refused too → 409 while its lease runs, then the original replayed, charged once", async () => {
    const { key, spent } = await fundedLiveAccount();
    const original = await served(await decide({ lostCompletion: true }, key.secret, "k-quad"));
    await lapseRecord(key.id, "k-quad");

    await expectUnavailable(await decide({ settleDown: true, releaseDown: true }, key.secret, "k-quad"));
    await expectError(
      await decide({}, key.secret, "k-quad"),
      409,
      "idempotency_in_progress",
      "idempotency-key",
    );
    await lapseRecord(key.id, "k-quad");
    const retry = await served(await decide({}, key.secret, "k-quad"));
    expect(retry).toEqual({ ...original, replayed: true });
    expect(await spent()).toBe(original.charge);
  });

  it("an owner that died after its debit + lease lapsed + ledger down at takeover → 503, then the retry runs and the dead owner is refunded: one charge", async () => {
    const { key, spent } = await fundedLiveAccount();
    expect((await decide({ crash: true }, key.secret, "k-dead")).status).toBe(500);
    const held = await spent();
    expect(held).toBeGreaterThan(0);
    await lapseRecord(key.id, "k-dead");

    await expectUnavailable(await decide({ settleDown: true }, key.secret, "k-dead"));
    const retry = await served(await decide({}, key.secret, "k-dead"));
    expect(retry.replayed).toBe(false);
    expect(await spent()).toBe(retry.charge);
    const again = await served(await decide({}, key.secret, "k-dead"));
    expect(again).toEqual({ ...retry, replayed: true });
    expect(await spent()).toBe(retry.charge);
  });

  it("for any sequence of calls, faults and lapses: debits minus refunds for one key are at most one charge, and every answer is the one original", async () => {
    const faults = fc.record({
      lostCompletion: fc.boolean(),
      settleDown: fc.boolean(),
      releaseDown: fc.boolean(),
      crash: fc.boolean(),
    });
    const step = fc.record({ faults, lapseAfter: fc.boolean() });
    const { key, spent } = await fundedLiveAccount();
    const unit = (await served(await decide({}, key.secret, "k-unit"))).charge;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const idem = `k-prop-${n++}`;
        const before = await spent();
        const answers: Served[] = [];
        for (const s of steps) {
          const res = await decide(s.faults, key.secret, idem);
          if (res.status === 200) answers.push(await served(res));
          else expect([409, 500, 503]).toContain(res.status);
          if (s.lapseAfter) await lapseRecord(key.id, idem);
          const net = (await spent()) - before;
          expect(net).toBeGreaterThanOrEqual(0);
          expect(net).toBeLessThanOrEqual(unit);
        }
        // A retry with no fault after the last lease lapsed settles everything: exactly the answer's charge.
        await lapseRecord(key.id, idem);
        const last = await decide({}, key.secret, idem);
        answers.push(await served(last));
        const [first, ...rest] = answers;
        expect(first!.replayed).toBe(false);
        for (const a of rest) expect(a).toEqual({ ...first, replayed: true });
        expect((await spent()) - before).toBe(first!.charge);
      }),
      { numRuns: 25 },
    );
  });
});

describe("a stalled owner that wakes up after its record was taken over cannot add a charge", () => {
  it("settled before its debit: the debit is refused (409 idempotency_in_progress), nothing taken", async () => {
    const acct = await seed({ keys: [{ mode: "live" }] });
    const services = buildServices(env);
    const ledger = services.ledger(acct.accountId);
    await ledger.credit({ account_id: acct.accountId, payment_id: "pay", amount_micro_cents: FUNDS });
    const owner = "req_01JDSTALLEDOWNER0000000000";
    expect(await ledger.settleLapsed([owner])).toEqual({ completion: null, refunded: [] });
    const debit = await ledger.debit({
      request_id: owner,
      account_id: acct.accountId,
      tokens: 100,
      amount_micro_cents: 100,
      test: false,
    });
    expect(debit).toEqual({ ok: false, superseded: true });
    expect((await ledger.balance()).balance_micro_cents).toBe(FUNDS);
  });

  it("settled (refunded) before it kept its completion: nothing is kept, settling again refunds nothing new", async () => {
    const acct = await seed({ keys: [{ mode: "live" }] });
    const ledger = buildServices(env).ledger(acct.accountId);
    await ledger.credit({ account_id: acct.accountId, payment_id: "pay", amount_micro_cents: FUNDS });
    const owner = "req_01JDSTALLEDOWNER0000000001";
    await ledger.debit({
      request_id: owner,
      account_id: acct.accountId,
      tokens: 100,
      amount_micro_cents: 100,
      test: false,
    });
    expect(await ledger.settleLapsed([owner])).toEqual({ completion: null, refunded: [owner] });
    await ledger.keepCompletion(owner, JSON.stringify({ id: owner }));
    expect(await ledger.settleLapsed([owner])).toEqual({ completion: null, refunded: [] });
    expect((await ledger.balance()).balance_micro_cents).toBe(FUNDS);
  });
});
