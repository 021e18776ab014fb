import { env as cfEnv, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../workers/env";
import type { AccountLedger } from "../../../workers/ledger/account-ledger";

const env = cfEnv as unknown as Env;

let n = 0;
function ledger(): { stub: DurableObjectStub<AccountLedger>; account: string } {
  const account = `acc_test_${++n}_${Math.random().toString(36).slice(2)}`;
  return { stub: env.LEDGER.get(env.LEDGER.idFromName(account)), account };
}

const live = (request_id: string, account_id: string, tokens: number, now?: number) => ({
  request_id,
  account_id,
  tokens,
  amount_micro_cents: tokens * 5,
  test: false,
  ...(now === undefined ? {} : { now }),
});

describe("AccountLedger", () => {
  it("credit is idempotent by payment id", async () => {
    const { stub, account } = ledger();
    expect(await stub.credit({ account_id: account, payment_id: "pay_1", amount_micro_cents: 1000 })).toEqual(
      {
        duplicate: false,
        balance_after: 1000,
      },
    );
    expect(await stub.credit({ account_id: account, payment_id: "pay_1", amount_micro_cents: 1000 })).toEqual(
      {
        duplicate: true,
        balance_after: 1000,
      },
    );
    expect((await stub.balance()).balance_micro_cents).toBe(1000);
  });

  it("'balance below the exact charge → 402, nothing charged'", async () => {
    const { stub, account } = ledger();
    await stub.credit({ account_id: account, payment_id: "p", amount_micro_cents: 499 });
    const r = await stub.debit(live("req_a", account, 100));
    expect(r).toEqual({ ok: false, balance: 499, required: 500 });
    expect((await stub.balance()).balance_micro_cents).toBe(499);
    expect((await stub.journalRows()).filter((j) => j.kind === "debit")).toHaveLength(0);
  });

  it("'exact charge debited in one atomic step': parallel debits never overdraw", async () => {
    const { stub, account } = ledger();
    await stub.credit({ account_id: account, payment_id: "p", amount_micro_cents: 57 * 500 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => stub.debit(live(`req_${i}`, account, 100))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(57);
    expect(results.filter((r) => !r.ok)).toHaveLength(143);
    expect((await stub.balance()).balance_micro_cents).toBe(0);
  });

  it("a repeated debit of the same request id takes nothing new", async () => {
    const { stub, account } = ledger();
    await stub.credit({ account_id: account, payment_id: "p", amount_micro_cents: 10_000 });
    await stub.debit(live("req_x", account, 100));
    const again = await stub.debit(live("req_x", account, 100));
    expect(again.ok && again.duplicate).toBe(true);
    expect((await stub.balance()).balance_micro_cents).toBe(9_500);
  });

  it("'charge refunded in full': refund is the exact, idempotent inverse incl. allowance and month tokens", async () => {
    const { stub, account } = ledger();
    await stub.credit({ account_id: account, payment_id: "p", amount_micro_cents: 10_000 });
    await stub.setPlanAllowance(160);
    const before = await stub.balance();
    const d = await stub.debit(live("req_r", account, 100));
    expect(d).toMatchObject({ ok: true, allowance_tokens: 100, balance_micro_cents: 0, tier: "t1" });
    const mid = await stub.balance();
    expect(mid).toMatchObject({ balance_micro_cents: 10_000, month_tokens: 100, week_allowance_left: 60 });
    expect(await stub.refund("req_r")).toEqual({ found: true, duplicate: false, balance_after: 10_000 });
    expect(await stub.refund("req_r")).toEqual({ found: true, duplicate: true, balance_after: 10_000 });
    expect(await stub.balance()).toEqual(before);
    expect(await stub.refund("req_unknown")).toMatchObject({ found: false });
  });

  it("allowance all or nothing: 60 tokens left and a 100-token request → the balance pays all 100 tokens, the allowance stays", async () => {
    const { stub, account } = ledger();
    await stub.credit({ account_id: account, payment_id: "p", amount_micro_cents: 10_000 });
    await stub.setPlanAllowance(60);
    expect(await stub.debit(live("req_aon", account, 100))).toMatchObject({
      ok: true,
      allowance_tokens: 0,
      balance_micro_cents: 500,
    });
    expect(await stub.balance()).toMatchObject({ balance_micro_cents: 9_500, week_allowance_left: 60 });
    expect(await stub.debit(live("req_aon2", account, 60))).toMatchObject({
      allowance_tokens: 60,
      balance_micro_cents: 0,
    });
  });

  it("'unused tokens do not roll over': a new ISO week starts with the full allowance", async () => {
    const { stub, account } = ledger();
    await stub.setPlanAllowance(100);
    const sunday = Date.UTC(2026, 10, 22, 23, 0); // Sun 22 Nov 2026
    const monday = Date.UTC(2026, 10, 23, 0, 30);
    expect(await stub.debit(live("req_w1", account, 40, sunday))).toMatchObject({
      ok: true,
      allowance_tokens: 40,
    });
    expect((await stub.balance(sunday)).week_allowance_left).toBe(60);
    expect((await stub.balance(monday)).week_allowance_left).toBe(100);
    // Allowance alone covers it: no balance needed.
    expect(await stub.debit(live("req_w2", account, 100, monday))).toMatchObject({
      ok: true,
      balance_micro_cents: 0,
    });
  });

  it("'a request is priced at the tier in force before it' (t1 < 1e9 ≤ t2 < 1e10 ≤ t3)", async () => {
    const { stub, account } = ledger();
    await runInDurableObject(stub, async (_obj, state) => {
      state.storage.sql.exec("INSERT INTO month_tokens (month, tokens) VALUES ('2026-11', 999999990)");
    });
    const nov = Date.UTC(2026, 10, 15);
    await stub.setPlanAllowance(1_000_000);
    expect(await stub.debit(live("req_t1", account, 20, nov))).toMatchObject({ ok: true, tier: "t1" });
    expect(await stub.debit(live("req_t2", account, 20, nov))).toMatchObject({ ok: true, tier: "t2" });
    expect(await stub.balance(nov)).toMatchObject({
      tier: "t2",
      month_tokens: 1_000_000_030,
      next_tier_at_tokens: 10_000_000_000,
    });
    // A new UTC month starts again at t1.
    expect((await stub.balance(Date.UTC(2026, 11, 1))).tier).toBe("t1");
  });

  it("test debits charge 0, tier test, and leave month tokens alone", async () => {
    const { stub, account } = ledger();
    const r = await stub.debit({
      request_id: "req_t",
      account_id: account,
      tokens: 50,
      amount_micro_cents: 0,
      test: true,
    });
    expect(r).toMatchObject({ ok: true, tier: "test", balance_micro_cents: 0 });
    expect((await stub.balance()).month_tokens).toBe(0);
  });

  it("journal sums to the balance", async () => {
    const { stub, account } = ledger();
    await stub.credit({ account_id: account, payment_id: "p", amount_micro_cents: 5_000 });
    await stub.debit(live("a", account, 100));
    await stub.debit(live("b", account, 300));
    await stub.refund("a");
    const rows = await stub.journalRows();
    const sum = rows.reduce(
      (s, r) => s + (r.kind === "debit" ? -r.amount_micro_cents : r.amount_micro_cents),
      0,
    );
    expect(sum).toBe((await stub.balance()).balance_micro_cents);
    expect(sum).toBe(3_500);
  });
});
