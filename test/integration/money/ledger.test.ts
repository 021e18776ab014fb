// Money path on the real stack: the ledger under parallel load, journal vs Postgres, balance and credit routes.
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, balanceOf, credit, decide, seed, useMoneyEdge } from "../../support/money-harness";
import { withStackDb } from "../../support/stack-db";

const world = useMoneyEdge("ok");

async function postgresJournal(accountId: string) {
  return withStackDb(async (q) => {
    const r = await q(
      `SELECT kind, count(*)::int AS n, COALESCE(sum(amount_micro_cents), 0)::text AS amount
         FROM ledger_journal WHERE account_id = $1 GROUP BY kind`,
      [accountId],
    );
    const by: Record<string, { n: number; amount: number }> = {};
    for (const row of r.rows as Array<{ kind: string; n: number; amount: string }>)
      by[row.kind] = { n: Number(row.n), amount: Number(row.amount) };
    return by;
  });
}

async function usageEventsByStatus(accountId: string): Promise<Record<number, number>> {
  const events = await withStackDb((q) =>
    q("SELECT status, count(*)::int AS n FROM usage_events WHERE account_id = $1 GROUP BY status", [
      accountId,
    ]),
  );
  return Object.fromEntries(
    (events.rows as Array<{ status: number; n: number }>).map((r) => [r.status, Number(r.n)]),
  );
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("ledger on the real stack", () => {
  it("'exact charge debited in one atomic step': 200 parallel decides against a balance covering 57 → 57 succeed, 143 get 402, balance 0, journal = Postgres", async () => {
    // Price one call on a throw-away account first (the charge is known before the request runs).
    const probe = await seed();
    await credit(world.edge.url, probe.accountId, 1_000_000);
    const first = await decide(world.edge.url, probe.keys[0]!.secret);
    expect(first.status).toBe(200);
    const charge = (first.json.usage as { charge_micro_cents: number }).charge_micro_cents;
    expect(charge).toBeGreaterThan(0);

    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(world.edge.url, acct.accountId, 57 * charge);
    const results = await Promise.all(Array.from({ length: 200 }, () => decide(world.edge.url, secret)));
    const ok = results.filter((r) => r.status === 200);
    const poor = results.filter((r) => r.status === 402);
    expect({ ok: ok.length, poor: poor.length }).toEqual({ ok: 57, poor: 143 });
    for (const r of poor) {
      expect(r.json.error).toMatchObject({
        type: "insufficient_balance",
        code: "insufficient_balance",
        required_micro_cents: charge,
      });
      expect(typeof (r.json.error as { balance_micro_cents: number }).balance_micro_cents).toBe("number");
    }
    const bal = await balanceOf(world.edge.url, secret);
    expect(bal).toMatchObject({ balance_micro_cents: 0, balance_eur: "0.00000000", tier: "t1" });

    const pg = await until(
      () => postgresJournal(acct.accountId),
      (j) => j.debit?.n === 57,
    );
    expect(pg.credit).toEqual({ n: 1, amount: 57 * charge });
    expect(pg.debit).toEqual({ n: 57, amount: 57 * charge });
    expect(pg.refund).toBeUndefined();

    // Usage events land after their responses, in batches of their own, not with the journal's flush.
    const byStatus = await until(
      () => usageEventsByStatus(acct.accountId),
      (counts) => Object.values(counts).reduce((a, b) => a + b, 0) >= 200,
    );
    expect(byStatus).toEqual({ 200: 57, 402: 143 });
  });

  it("GET /v1/balance reports balance, euro string, tier, unit price, month-to-date tokens, next tier", async () => {
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(world.edge.url, acct.accountId, 10_000_000_000, "pay_demo_100");
    const r = await decide(world.edge.url, secret);
    const tokens = (r.json.usage as { input_tokens: number }).input_tokens;
    const res = await fetch(`${world.edge.url}/v1/balance`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toBe('"rpm";q=300;w=60, "tpm";q=300000;w=60');
    expect(res.headers.get("ratelimit")).toMatch(
      new RegExp(`^"rpm";r=299;t=\\d+, "tpm";r=${300_000 - tokens};t=\\d+$`),
    );
    expect(await res.json()).toMatchObject({
      object: "balance",
      balance_micro_cents: 10_000_000_000 - tokens * 5,
      balance_eur: ((10_000_000_000 - tokens * 5) / 1e8).toFixed(8),
      tier: "t1",
      unit_price_micro_cents: 5,
      month_to_date_tokens: tokens,
      next_tier_at_tokens: 1_000_000_000,
    });
  });

  it("usage events: 'calls that ended in an error; never charged' are recorded too (422 before the money path)", async () => {
    const acct = await seed();
    const r = await decide(world.edge.url, acct.keys[0]!.secret, { state: "x", questions: {} });
    expect(r.status).toBe(422);
    const rows = await until(
      () =>
        withStackDb((q) =>
          q(
            "SELECT status, error_code, charge_micro_cents::int AS c FROM usage_events WHERE request_id = $1",
            [r.headers.get("x-request-id")],
          ),
        ),
      (res) => res.rows.length > 0,
    );
    expect(rows.rows[0]).toMatchObject({ status: 422, error_code: "invalid_value", c: 0 });
  });

  it("credit route: admin token required, idempotent by payment id", async () => {
    const acct = await seed();
    const body = JSON.stringify({
      account_id: acct.accountId,
      amount_micro_cents: 500,
      payment_id: "pay_once",
    });
    const bad = await fetch(`${world.edge.url}/internal/ledger/credit`, {
      method: "POST",
      headers: { authorization: "Bearer wrong", "content-type": "application/json" },
      body,
    });
    expect(bad.status).toBe(401);
    const post = () =>
      fetch(`${world.edge.url}/internal/ledger/credit`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body,
      }).then((r) => r.json());
    expect(await post()).toMatchObject({ duplicate: false, balance_micro_cents: 500 });
    expect(await post()).toMatchObject({ duplicate: true, balance_micro_cents: 500 });
  });

  it("journal = Postgres per account: one payment id credited to two accounts is kept for both", async () => {
    const [a, b] = await Promise.all([seed(), seed()]);
    await credit(world.edge.url, a.accountId, 700, "pay_shared_by_two");
    await credit(world.edge.url, b.accountId, 900, "pay_shared_by_two");
    for (const [acct, amount] of [
      [a, 700],
      [b, 900],
    ] as const) {
      const journal = await until(
        () => postgresJournal(acct.accountId),
        (j) => j.credit?.n === 1,
      );
      expect(journal.credit).toEqual({ n: 1, amount });
    }
  });
});
