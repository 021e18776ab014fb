import {
  env as cfEnv,
  createExecutionContext,
  createScheduledController,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { UNIT_PRICE_MICRO_CENTS } from "../../../schema/pricing";
import { takeCharge } from "../../../workers/billing/charge";
import type { Services } from "../../../workers/context/services";
import type { Env } from "../../../workers/env";
import worker from "../../../workers/index";
import type { AccountLedger } from "../../../workers/ledger/account-ledger";
import type { Ledger } from "../../../workers/ledger/stub";
import { buildServices } from "../../../workers/services";
import { getSql } from "../../../workers/stores/db";
import { pendingRefundIntents, recordRefundIntent } from "../../../workers/stores/refund-intents";

const env = cfEnv as unknown as Env;

function account(): { id: string; stub: DurableObjectStub<AccountLedger> } {
  const id = `acc_ri_${Math.random().toString(36).slice(2)}`;
  return { id, stub: env.LEDGER.get(env.LEDGER.idFromName(id)) };
}

const services = buildServices(env);

/** Services whose ledger takes debits (on the real Durable Object) but refuses every refund, as if unreachable. */
function servicesWithRefundsDown(real: DurableObjectStub<AccountLedger>): Services & { stub: Ledger } {
  const stub = {
    debit: (input: Parameters<AccountLedger["debit"]>[0]) => real.debit(input),
    refund: async () => {
      throw new Error("Durable Object unreachable (injected)");
    },
  } as unknown as Ledger;
  return { ...services, ledger: () => stub, stub };
}

const tokens = { state_tokens: 80, question_tokens: 20, input_tokens: 100 };
const charge = 100 * UNIT_PRICE_MICRO_CENTS;

describe("refunds the ledger could not take (billing rule: a failed call is not charged)", () => {
  it("both refund attempts fail → the refund is recorded in Postgres and the ledger applies it exactly once", async () => {
    const { id, stub } = account();
    await stub.credit({ account_id: id, payment_id: "pay", amount_micro_cents: 10 * charge });
    const taken = await takeCharge(servicesWithRefundsDown(stub), id, "live", "req_ri_1", tokens);
    expect((await stub.balance()).balance_micro_cents).toBe(9 * charge);

    await taken.refund(); // resolves: nothing is lost, the intent is durable
    // Every direct refund was refused, so a refund in the journal can only come from the recorded intent.

    await stub.applyRefundIntents(); // (the ledger's own alarm, armed by the debit, may have been first)
    expect((await stub.balance()).balance_micro_cents).toBe(10 * charge);
    expect(await pendingRefundIntents(env, id)).toEqual([]);
    // A second delivery of the same intent moves nothing.
    await recordRefundIntent(env, id, "req_ri_1");
    await stub.applyRefundIntents();
    expect(await pendingRefundIntents(env, id)).toEqual([]);
    expect((await stub.balance()).balance_micro_cents).toBe(10 * charge);
    expect((await stub.journalRows()).filter((r) => r.kind === "refund")).toHaveLength(1);
  });

  it("the ledger's alarm after its next write applies pending intents", async () => {
    const { id, stub } = account();
    await stub.credit({ account_id: id, payment_id: "pay", amount_micro_cents: 10 * charge });
    await takeCharge(services, id, "live", "req_ri_2", tokens);
    await recordRefundIntent(env, id, "req_ri_2");
    await stub.credit({ account_id: id, payment_id: "pay_2", amount_micro_cents: 1 }); // any write arms the alarm
    await vi.waitFor(async () => expect(await pendingRefundIntents(env, id)).toEqual([]), {
      timeout: 10_000,
      interval: 100,
    });
    expect((await stub.balance()).balance_micro_cents).toBe(10 * charge + 1);
  });

  it("ledger unreachable at the debit → 503 billing_unavailable, and a debit that landed anyway is given back", async () => {
    const { id, stub } = account();
    await stub.credit({ account_id: id, payment_id: "pay", amount_micro_cents: 10 * charge });
    const down = servicesWithRefundsDown(stub);
    const ledger = down.stub as unknown as Record<string, unknown>;
    const debit = ledger.debit as AccountLedger["debit"];
    ledger.debit = async (input: Parameters<AccountLedger["debit"]>[0]) => {
      await debit(input); // lands on the ledger, then the connection "breaks"
      throw new Error("connection reset (injected)");
    };
    await expect(takeCharge(down, id, "live", "req_ri_3", tokens)).rejects.toMatchObject({
      code: "billing_unavailable",
    });
    await stub.applyRefundIntents(); // (or the alarm the debit armed, whichever runs first)
    expect((await stub.balance()).balance_micro_cents).toBe(10 * charge);
    expect(await pendingRefundIntents(env, id)).toEqual([]);
    expect((await stub.journalRows()).filter((r) => r.kind === "refund")).toHaveLength(1);
  });

  it("the cron sweep applies intents older than a minute for an account that never writes again", async () => {
    const { id, stub } = account();
    await stub.credit({ account_id: id, payment_id: "pay", amount_micro_cents: 10 * charge });
    await takeCharge(services, id, "live", "req_ri_4", tokens);
    // Let the ledger's own alarm (armed by the debit) run and finish, so only the sweep can apply what follows.
    const flushed = () =>
      getSql(env).query("SELECT 1 FROM ledger_journal WHERE kind = 'debit' AND ref = 'req_ri_4'");
    await vi.waitFor(async () => expect(await flushed()).toHaveLength(1), { timeout: 10_000, interval: 100 });
    // …and no alarm is left armed (a flush retried under load would otherwise apply the intent first).
    await vi.waitFor(
      async () => expect(await runInDurableObject(stub, (_l, state) => state.storage.getAlarm())).toBeNull(),
      { timeout: 15_000, interval: 100 },
    );
    await recordRefundIntent(env, id, "req_ri_4");
    await recordRefundIntent(env, id, "req_ri_young"); // not debited; too young to make the sweep visit alone
    await getSql(env).query(
      "UPDATE ledger_refund_intents SET created_at = now() - interval '2 minutes' WHERE request_id = 'req_ri_4'",
    );
    expect((await stub.balance()).balance_micro_cents).toBe(9 * charge);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    // The old intent made the sweep visit the account; its ledger then applied everything it owed.
    expect(await pendingRefundIntents(env, id)).toEqual([]);
    expect((await stub.balance()).balance_micro_cents).toBe(10 * charge);
  });

  it("the sweep clears an intent on a ledger that never took a debit (it knows the account id)", async () => {
    const { id, stub } = account();
    await recordRefundIntent(env, id, "req_ri_orphan");
    expect(await stub.applyRefundIntents(id)).toBe(1);
    expect(await pendingRefundIntents(env, id)).toEqual([]);
    expect((await stub.balance()).balance_micro_cents).toBe(0);
  });

  it("an intent for a request that was never debited moves nothing", async () => {
    const { id, stub } = account();
    await stub.credit({ account_id: id, payment_id: "pay", amount_micro_cents: charge });
    await recordRefundIntent(env, id, "req_ri_never");
    expect(await stub.applyRefundIntents()).toBe(1);
    expect((await stub.balance()).balance_micro_cents).toBe(charge);
    expect((await stub.journalRows()).filter((r) => r.kind === "refund")).toHaveLength(0);
  });
});
