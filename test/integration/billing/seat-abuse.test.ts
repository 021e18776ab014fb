import { neon } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "../../../scripts/migrations";
import { withNodeClient } from "../../../scripts/stack/neon-node";
import { seedAccount } from "../../../scripts/stack/seed";
import { database } from "../../../workers/stores/db";
import { type CheckoutClaim, claimCheckoutSeat, seatsTaken } from "../../../workers/stores/seats";
import { postgresTargets, stack } from "../../support/stack-db";

// Issue 45 item 3 at the store: the seat rules a plan checkout claims by (a plan of its own per test).
describe.each(postgresTargets())("plan checkout seats, issue 45 item 3 ($name)", ({ url }) => {
  const setup = async () => {
    const u = url();
    await withNodeClient(u, { wsProxy: stack().NEON_WS_PROXY }, (q) => applyMigrations(q));
    const db = database({
      DATABASE_URL: u,
      NEON_WS_PROXY: stack().NEON_WS_PROXY,
      NEON_HTTP_ENDPOINT: stack().NEON_HTTP_ENDPOINT,
    });
    const sql = neon(u);
    const account = async () => (await seedAccount((t, p) => sql.query(t, p), { keys: [] })).accountId;
    const plan = () => `abuse_${Math.random().toString(36).slice(2, 10)}`;
    const claim = (accountId: string, planId: string, total: number | null): Promise<unknown> =>
      db.transaction((tx) =>
        claimCheckoutSeat(tx, {
          accountId,
          planId,
          total,
          ttlSeconds: 3_600,
          maxRenewals: 2,
        } as CheckoutClaim),
      );
    return { db, sql, account, plan, claim };
  };

  it('"a sold-out check on renewal": a full plan renews no hold (it keeps its hour and then lapses)', async () => {
    const { db, sql, account, plan, claim } = await setup();
    const p = plan();
    const [a, b] = [await account(), await account()];
    expect(await claim(a, p, 2)).toMatchObject({ outcome: "held", replaced: [] });
    expect(await claim(a, p, 2)).toMatchObject({ outcome: "held" }); // a free seat left: renewed
    expect(await claim(b, p, 2)).toMatchObject({ outcome: "held" });
    await sql.query(
      "UPDATE seat_holds SET expires_at = now() + interval '10 minutes' WHERE account_id = $1",
      [a],
    );
    expect(await claim(a, p, 2)).toEqual({ outcome: "sold_out" });
    const [hold] = (await sql.query(
      "SELECT expires_at < now() + interval '11 minutes' AS kept FROM seat_holds WHERE account_id = $1",
      [a],
    )) as { kept: boolean }[];
    expect(hold).toEqual({ kept: true });
    expect((await seatsTaken(db))[p]).toBe(2);
  });

  it('"one checkout hold per account across plans": a claim on another plan releases the first (its session answered)', async () => {
    const { db, sql, account, plan, claim } = await setup();
    const [p, q] = [plan(), plan()];
    const a = await account();
    await claim(a, p, 1);
    await sql.query("UPDATE seat_holds SET ref = 'cs_first' WHERE account_id = $1", [a]);
    expect(await claim(a, q, 1)).toEqual({ outcome: "held", replaced: [{ planId: p, ref: "cs_first" }] });
    const taken = await seatsTaken(db);
    expect([taken[p], taken[q]]).toEqual([undefined, 1]);
  });

  it('"accounts waiting come first": a lapsed hold\'s seat goes to the waiting list, not to a new checkout', async () => {
    const { sql, account, plan, claim } = await setup();
    const p = plan();
    const [holder, waiter] = [await account(), await account()];
    await claim(holder, p, 1);
    await sql.query("INSERT INTO waiting_list (account_id, plan_id) VALUES ($1, $2)", [waiter, p]);
    await sql.query("UPDATE seat_holds SET expires_at = now() - interval '1 second' WHERE account_id = $1", [
      holder,
    ]);
    expect(await claim(holder, p, 1)).toEqual({ outcome: "sold_out" });
    expect(await claim(waiter, p, 1)).toMatchObject({ outcome: "held" });
  });
});
