import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../workers/env";
import { getSql } from "../../../workers/stores/db";
import { journalBalance } from "../../../workers/stores/ledger-journal";
import { balanceOf, deliver, deliverAll, eventsAbout, fake, postAs } from "../../support/billing";
import { bearer, call, expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const EUR = 100_000_000; // micro-cents
const ledger = (acc: string) => e.LEDGER.get(e.LEDGER.idFromName(acc));

/** A paid card top-up of `cents`, credited; its account, live key and payment intent. */
async function paidTopUp(cents: number): Promise<{ acc: string; key: string; pi: string }> {
  const seeded = await seed({ keys: [{ mode: "live" }] });
  const acc = seeded.accountId;
  const res = await postAs(acc, "/v1/console/checkout-sessions", { amount_cents: cents });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await fake(`sessions/${id}/complete`, { method: "card" });
  expect(await deliverAll(id, "checkout.session.completed")).toEqual([200]);
  expect(await balanceOf(acc)).toBe((cents / 100) * EUR);
  const [completed] = await eventsAbout(id);
  const pi = (completed!.data.object as { payment_intent?: string }).payment_intent!;
  return { acc, key: seeded.keys[0]!.secret, pi };
}

/** The fake's event by id. */
async function eventById(id: string): Promise<unknown> {
  const { events } = await fake<{ events: { id: string }[] }>("events");
  return events.find((ev) => ev.id === id);
}

const statusOf = async (acc: string) =>
  ((await getSql(e).query("SELECT status FROM accounts WHERE id = $1", [acc])) as { status: string }[])[0]!
    .status;

describe("issue 45 item 7: a disputed or refunded top-up gives back its credit", () => {
  it('"charge.dispute.created debits the credit, once per event; below zero the account is suspended"', async () => {
    const { acc, key, pi } = await paidTopUp(2_500);
    // The customer spends EUR 20 of the EUR 25, then disputes the whole payment.
    await ledger(acc).debit({
      request_id: "req_spent",
      account_id: acc,
      tokens: 1,
      amount_micro_cents: 20 * EUR,
      test: false,
    });
    const { event } = await fake<{ event: string }>(`payment_intents/${pi}/dispute`, {});
    const dispute = await eventById(event);
    expect(dispute).toMatchObject({
      type: "charge.dispute.created",
      data: { object: { object: "dispute", payment_intent: pi, amount: 3_000, status: "needs_response" } },
    });
    const statuses = await Promise.all([1, 2, 3].map(() => deliver(dispute)));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await balanceOf(acc)).toBe(-20 * EUR);
    expect(await statusOf(acc)).toBe("suspended");
    await expectError(await call("GET", "/v1/balance", { headers: bearer(key) }), 403, "account_suspended");
    const rows = (await ledger(acc).journalRows()).filter((r) => r.kind === "chargeback");
    expect(rows).toMatchObject([{ ref: event, amount_micro_cents: 25 * EUR }]);
    await ledger(acc).flush();
    expect(await journalBalance(e, acc)).toBe(-20 * EUR); // Postgres' copy agrees
  });

  it('"charge.refunded debits the refunded share of the credit, once per event"; a balance still at or above zero keeps the account active', async () => {
    const { acc, pi } = await paidTopUp(10_000);
    const half = await fake<{ event: string }>(`payment_intents/${pi}/refund`, { amount: 6_000 }); // of 12,000 with VAT
    const refunded = await eventById(half.event);
    expect(refunded).toMatchObject({
      type: "charge.refunded",
      data: { object: { object: "charge", payment_intent: pi, amount: 12_000, amount_refunded: 6_000 } },
    });
    expect((await deliver(refunded)).status).toBe(200);
    expect((await deliver(refunded)).status).toBe(200);
    expect(await balanceOf(acc)).toBe(50 * EUR);
    const rest = await fake<{ event: string }>(`payment_intents/${pi}/refund`, {});
    expect((await deliver(await eventById(rest.event))).status).toBe(200);
    expect(await balanceOf(acc)).toBe(0);
    expect(await statusOf(acc)).toBe("active");
    // A late redelivery of the first refund takes nothing more.
    expect((await deliver(refunded)).status).toBe(200);
    expect(await balanceOf(acc)).toBe(0);
  });
});
