import { neon } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "../../../scripts/migrations";
import { withNodeClient } from "../../../scripts/stack/neon-node";
import { seedAccount } from "../../../scripts/stack/seed";
import { database } from "../../../workers/stores/db";
import { claimSeat, holdForSubscription, releaseSeat, seatsTaken } from "../../../workers/stores/seats";
import { reserveDowngrade } from "../../../workers/stores/subscription-downgrades";
import { postgresTargets, stack } from "../../support/stack-db";

// .ci/run runs this file again with REAL_DATABASE_URL naming PostgreSQL 15.
const targets = postgresTargets();

describe.each(targets)("seats ($name)", ({ name, url }) => {
  // Races need sessions that really wait on each other: PGlite runs one session underneath (its socket
  // server takes connections in turn), so they run on the PostgreSQL server only.
  const race = it.skipIf(name === "PGlite");
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
    const plan = () => `race_${Math.random().toString(36).slice(2, 10)}`;
    return { db, account, plan };
  };
  const claim = (
    accountId: string,
    planId: string,
    total: number | null,
    kind: "checkout" | "invitation" = "checkout",
  ) => ({
    accountId,
    planId,
    total,
    kind,
    ref: null,
    ttlSeconds: 3_600,
  });

  race("two accounts racing for the last seat: exactly one wins, every round (20 rounds)", async () => {
    const { db, account, plan } = await setup();
    for (let round = 0; round < 20; round++) {
      const p = plan();
      const [a, b] = [await account(), await account()];
      const outcomes = await Promise.all(
        [a, b].map((acc) => db.transaction((tx) => claimSeat(tx, claim(acc, p, 1)))),
      );
      expect(outcomes.sort()).toEqual(["held", "sold_out"]);
      expect((await seatsTaken(db))[p]).toBe(1);
    }
  });

  race("eight accounts racing for three seats: exactly three win", async () => {
    const { db, account, plan } = await setup();
    const p = plan();
    const accounts = await Promise.all(Array.from({ length: 8 }, account));
    const outcomes = await Promise.all(
      accounts.map((acc) => db.transaction((tx) => claimSeat(tx, claim(acc, p, 3)))),
    );
    expect(outcomes.filter((o) => o === "held")).toHaveLength(3);
    expect((await seatsTaken(db))[p]).toBe(3);
  });

  it("the account's own hold is renewed without a new seat; a lapsed hold frees its seat; no limit with null", async () => {
    const { db, account, plan } = await setup();
    const p = plan();
    const [a, b] = [await account(), await account()];
    expect(await db.transaction((tx) => claimSeat(tx, claim(a, p, 1, "invitation")))).toBe("held");
    expect(await db.transaction((tx) => claimSeat(tx, claim(a, p, 1)))).toBe("held"); // invitation → checkout
    expect(await db.transaction((tx) => claimSeat(tx, claim(b, p, 1)))).toBe("sold_out");
    await db
      .sql()
      .query("UPDATE seat_holds SET expires_at = now() - interval '1 second' WHERE account_id = $1", [a]);
    expect(await db.transaction((tx) => claimSeat(tx, claim(b, p, 1)))).toBe("held");
    expect(await db.transaction((tx) => claimSeat(tx, claim(a, p, null)))).toBe("held");
  });

  it("a subscription holds the seat; an upgrade moves it; a release frees it", async () => {
    const { db, account, plan } = await setup();
    const [cheap, dear] = [plan(), plan()];
    const a = await account();
    await db.transaction((tx) => claimSeat(tx, claim(a, cheap, 1)));
    expect(
      await db.transaction((tx) =>
        holdForSubscription(tx, { accountId: a, planId: cheap, subscriptionId: "sub_1" }),
      ),
    ).toEqual([]);
    expect(await db.transaction((tx) => claimSeat(tx, claim(a, cheap, 1)))).toBe("subscribed");
    await db.transaction((tx) => claimSeat(tx, claim(a, dear, 1)));
    const freed = await db.transaction((tx) =>
      holdForSubscription(tx, { accountId: a, planId: dear, subscriptionId: "sub_2" }),
    );
    expect(freed).toEqual([cheap]);
    const taken = await seatsTaken(db);
    expect([taken[cheap], taken[dear]]).toEqual([undefined, 1]);
    const released = await db.transaction((tx) =>
      releaseSeat(tx, { accountId: a, planId: dear, kinds: ["subscription"], ref: "sub_2" }),
    );
    expect(released).toBe(true);
    expect((await seatsTaken(db))[dear]).toBeUndefined();
  });

  it("a scheduled downgrade holds the cheaper plan's seat; when it takes effect the dearer seat is freed", async () => {
    const { db, account, plan } = await setup();
    const [cheap, dear] = [plan(), plan()];
    const [a, b] = [await account(), await account()];
    await db.transaction((tx) =>
      holdForSubscription(tx, { accountId: a, planId: dear, subscriptionId: "sub_d" }),
    );
    const downgrade = { ...claim(a, cheap, 1), kind: "downgrade" as const, ttlSeconds: null };
    expect(await db.transaction((tx) => claimSeat(tx, downgrade))).toBe("held");
    expect(await db.transaction((tx) => claimSeat(tx, claim(b, cheap, 1)))).toBe("sold_out");
    const freed = await db.transaction((tx) =>
      holdForSubscription(tx, { accountId: a, planId: cheap, subscriptionId: "sub_d" }),
    );
    expect(freed).toEqual([dear]);
    const taken = await seatsTaken(db);
    expect([taken[cheap], taken[dear]]).toEqual([1, undefined]);
  });

  race(
    "two accounts scheduling a downgrade to the cheaper plan's last seat: exactly one wins, every round (10 rounds)",
    async () => {
      const { db, account, plan } = await setup();
      for (let round = 0; round < 10; round++) {
        const [cheap, dear] = [plan(), plan()];
        const [a, b] = [await account(), await account()];
        for (const acc of [a, b])
          await db.transaction((tx) =>
            holdForSubscription(tx, { accountId: acc, planId: dear, subscriptionId: `sub_${acc}` }),
          );
        const outcomes = await Promise.all(
          [a, b].map((acc) =>
            db.transaction((tx) =>
              reserveDowngrade(
                tx,
                {
                  id: `sdg_${acc}`,
                  accountId: acc,
                  subscriptionId: `sub_${acc}`,
                  fromPlanId: dear,
                  planId: cheap,
                },
                1,
              ),
            ),
          ),
        );
        expect(outcomes.map((o) => o.outcome).sort()).toEqual(["held", "sold_out"]);
        expect((await seatsTaken(db))[cheap]).toBe(1);
        const rows = (await db
          .sql()
          .query("SELECT count(*)::int AS n FROM subscription_downgrades WHERE account_id = ANY($1)", [
            [a, b],
          ])) as { n: number }[];
        expect(rows[0]!.n).toBe(1); // the loser's downgrade was not recorded
      }
    },
  );

  race("one account scheduling twice at once: one downgrade, one seat", async () => {
    const { db, account, plan } = await setup();
    const [cheap, dear] = [plan(), plan()];
    const a = await account();
    await db.transaction((tx) =>
      holdForSubscription(tx, { accountId: a, planId: dear, subscriptionId: "sub_twice" }),
    );
    const outcomes = await Promise.all(
      ["sdg_one", "sdg_two"].map((id) =>
        db.transaction((tx) =>
          reserveDowngrade(
            tx,
            { id: `${id}_${a}`, accountId: a, subscriptionId: "sub_twice", fromPlanId: dear, planId: cheap },
            5,
          ),
        ),
      ),
    );
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["exists", "held"]);
    expect((await seatsTaken(db))[cheap]).toBe(1);
  });
});
