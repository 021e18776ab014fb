import { neon } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations } from "../../../scripts/migrations";
import { type FakeStripe, startFakeStripe } from "../../../scripts/stack/fake-stripe";
import { withNodeClient } from "../../../scripts/stack/neon-node";
import { seedAccount } from "../../../scripts/stack/seed";
import { createTopUpCheckout } from "../../../workers/billing/top-up-checkout";
import { stripeClient } from "../../../workers/clients/stripe";
import { ApiError } from "../../../workers/errors";
import { database } from "../../../workers/stores/db";
import { stack, useStackNeon } from "../../support/stack-db";

// Parallel top-ups need a server where transactions really wait on each other: PGlite runs one session
// underneath, and its socket server can interleave concurrent connections' messages. .ci/run names
// PostgreSQL 15 in REAL_DATABASE_URL; without it this file has nothing to run on.
const real = process.env.REAL_DATABASE_URL;

describe.skipIf(!real)("the EUR 500 cap under parallel top-ups (PostgreSQL server)", () => {
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe();
  });
  afterAll(async () => {
    await fake?.close();
  });

  const setup = async () => {
    useStackNeon();
    await withNodeClient(real!, { wsProxy: stack().NEON_WS_PROXY }, (q) => applyMigrations(q));
    const db = database({
      DATABASE_URL: real,
      NEON_WS_PROXY: stack().NEON_WS_PROXY,
      NEON_HTTP_ENDPOINT: stack().NEON_HTTP_ENDPOINT,
    });
    const stripe = stripeClient({ STRIPE_SECRET_KEY: fake.secretKey, STRIPE_API_URL: fake.url });
    const sql = neon(real!);
    const account = async () => (await seedAccount((t, p) => sql.query(t, p), { keys: [] })).accountId;
    return { deps: { db, stripe }, account };
  };

  const topUp = (
    deps: Parameters<typeof createTopUpCheckout>[0],
    accountId: string,
    cents: number,
    key?: string,
  ) =>
    createTopUpCheckout(deps, {
      accountId,
      creditCents: cents,
      returnUrl: "http://console.test/billing",
      returnPath: "/billing",
      idempotencyKey: key,
      fingerprint: `fp-${cents}`,
    }).then(
      () => "created",
      (e: unknown) => (e instanceof ApiError ? e.code : String(e)),
    );

  it("eight parallel EUR 200 top-ups of a new account: exactly two pass, six get top_up_limit_exceeded (5 rounds)", async () => {
    const { deps, account } = await setup();
    for (let round = 0; round < 5; round++) {
      const acc = await account();
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => topUp(deps, acc, 20_000)));
      expect(outcomes.filter((o) => o === "created")).toHaveLength(2);
      expect(outcomes.filter((o) => o === "top_up_limit_exceeded")).toHaveLength(6);
    }
  });

  it("five parallel requests with one idempotency key open one session", async () => {
    const { deps, account } = await setup();
    const acc = await account();
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => topUp(deps, acc, 1_000, "same-key")));
    expect(outcomes.filter((o) => o === "created").length).toBeGreaterThanOrEqual(1);
    expect(outcomes.every((o) => o === "created" || o === "idempotency_in_progress")).toBe(true);
    const rows = await neon(real!).query("SELECT count(*)::int AS n FROM top_ups WHERE account_id = $1", [
      acc,
    ]);
    expect(rows).toEqual([{ n: 1 }]);
  });
});
