// Issue 43 item 4: each alert raised once per incident by the fault that causes it and resolved when it clears
// (worker tier: the real Worker in workerd on the test stack's Postgres and Redis; the faults of the data
// services themselves are in test/integration/alerts/faults.test.ts).
import {
  env as cfEnv,
  createExecutionContext,
  createScheduledController,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import { STRIPE_WEBHOOK_IPS } from "../../../workers/clients/stripe";
import type { Env } from "../../../workers/env";
import worker, { CRONS } from "../../../workers/index";
import { ledgerStub } from "../../../workers/ledger/stub";
import { getSql } from "../../../workers/stores/db";
import { recordRefundIntent } from "../../../workers/stores/refund-intents";
import { BASE } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const ADMIN = { authorization: "Bearer test-admin-token" };

interface IncidentJson {
  key: string;
  alert: string;
  state: "pending" | "open" | "resolved";
  notified: string;
  summary: string;
}

async function evaluate(): Promise<{
  opened: string[];
  resolved: string[];
  redis: string | null;
  postgres: string | null;
}> {
  const res = await SELF.fetch(`${BASE}/internal/alerts/evaluate`, { method: "POST", headers: ADMIN });
  expect(res.status).toBe(200);
  return res.json();
}

async function incidents(alert: string): Promise<IncidentJson[]> {
  const res = await SELF.fetch(`${BASE}/internal/alerts`, { headers: ADMIN });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: IncidentJson[] }).data.filter((i) => i.alert === alert);
}

const openOf = async (alert: string) => (await incidents(alert)).filter((i) => i.state === "open");

describe("operator alerts (worker tier)", () => {
  it("the operator routes need the admin token", async () => {
    for (const [method, path] of [
      ["POST", "/internal/alerts/evaluate"],
      ["GET", "/internal/alerts"],
      ["POST", "/internal/canary/run"],
      ["DELETE", "/internal/canary/baselines"],
    ] as const) {
      const res = await SELF.fetch(`${BASE}${path}`, { method });
      expect(res.status, path).toBe(401);
    }
  });

  it("'refund intents unsettled for more than N minutes': a refund the ledger refused, left 20 min, opens one incident; settling it by hand resolves it", async () => {
    const account = `acc_${ulid()}`;
    const requestId = `req_alert_${account}`;
    // What billing/charge.ts records when both refund attempts were refused.
    await recordRefundIntent(env, account, requestId);
    await getSql(env).query(
      "UPDATE ledger_refund_intents SET created_at = now() - interval '20 minutes' WHERE request_id = $1",
      [requestId],
    );
    const first = await evaluate();
    expect(first.postgres).toBeNull();
    const open = await openOf("refund_intents_unsettled");
    expect(open).toHaveLength(1);
    expect(open[0]!.notified).toBe("opened");
    // Raised once: a second tick keeps the same incident open and sends nothing new.
    const second = await evaluate();
    expect(second.opened).not.toContain("refund_intents_unsettled");
    expect(await openOf("refund_intents_unsettled")).toHaveLength(1);

    const applied = await SELF.fetch(`${BASE}/internal/accounts/${account}/refund-intents/apply`, {
      method: "POST",
      headers: ADMIN,
    });
    expect(applied.status).toBe(200);
    expect(await applied.json()).toMatchObject({ object: "refund_intents_applied", applied: 1 });
    const left = await getSql(env).query("SELECT 1 FROM ledger_refund_intents WHERE request_id = $1", [
      requestId,
    ]);
    expect(left).toEqual([]);
    const after = await evaluate();
    expect(after.resolved).toContain("refund_intents_unsettled");
    const all = await incidents("refund_intents_unsettled");
    expect(all.filter((i) => i.state === "open")).toEqual([]);
    expect(all[0]).toMatchObject({ state: "resolved", notified: "resolved" });
  });

  it("'Stripe webhook signature failures': three bad signatures from Stripe's own webhook addresses open the alert; once they age out of the 5-minute window it resolves", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await SELF.fetch(`${BASE}/v1/webhooks/stripe`, {
        method: "POST",
        headers: {
          "stripe-signature": "t=1,v1=00",
          "content-type": "application/json",
          "cf-connecting-ip": STRIPE_WEBHOOK_IPS[i]!,
        },
        body: "{}",
      });
      expect(res.status).toBe(400);
    }
    await expect
      .poll(async () => {
        await evaluate();
        return (await openOf("stripe_signature_failures")).length;
      })
      .toBe(1);
    // Five minutes later (the counts moved back instead of waiting): the window holds none.
    await getSql(env).query(
      "UPDATE ops_signal_counts SET minute = minute - interval '10 minutes' WHERE signal = 'stripe_signature_failure' AND minute > now() - interval '6 minutes'",
    );
    const after = await evaluate();
    expect(after.resolved).toContain("stripe_signature_failures");
    expect(await openOf("stripe_signature_failures")).toEqual([]);
  });

  it("'ledger Durable Object errors': a call the ledger refuses is counted and opens the alert; it resolves when the window is clean", async () => {
    const account = `acc_ledgererr${Math.random().toString(36).slice(2, 10)}`;
    const ledger = ledgerStub(env, account);
    await expect(
      ledger.credit({ account_id: account, payment_id: "pay_bad", amount_micro_cents: -1 }),
    ).rejects.toThrow();
    await expect
      .poll(async () => {
        await evaluate();
        return (await openOf("ledger_errors")).length;
      })
      .toBe(1);
    await getSql(env).query(
      "UPDATE ops_signal_counts SET minute = minute - interval '10 minutes' WHERE signal = 'ledger_error' AND minute > now() - interval '6 minutes'",
    );
    const after = await evaluate();
    expect(after.resolved).toContain("ledger_errors");
  });

  it("DELETE /internal/canary/baselines forgets recordings (all, or by version and class)", async () => {
    await getSql(env).query(
      "INSERT INTO canary_baselines (model, numerics_class, answers, recorded_from) VALUES ('svc-1.4.0', 'cpu-x', '{}', 'http://w') ON CONFLICT DO NOTHING",
    );
    const res = await SELF.fetch(`${BASE}/internal/canary/baselines?model=svc-1.4.0&numerics_class=cpu-x`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ object: "canary_baselines_reset", deleted: 1 });
  });

  it("POST /internal/canary/run without CANARY_API_KEY answers that the canary could not run", async () => {
    const res = await SELF.fetch(`${BASE}/internal/canary/run`, { method: "POST", headers: ADMIN });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ object: "alert_evaluation", canary: null });
  });

  it("'a Cron Trigger (every minute in production)': the * * * * * cron runs the same evaluation", async () => {
    expect(CRONS.alerts).toBe("* * * * *");
    const account = `acc_${ulid()}`;
    await recordRefundIntent(env, account, `req_cron_${account}`);
    await getSql(env).query(
      "UPDATE ledger_refund_intents SET created_at = now() - interval '30 minutes' WHERE account_id = $1",
      [account],
    );
    const tick = async () => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: CRONS.alerts }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    await tick();
    expect(await openOf("refund_intents_unsettled")).toHaveLength(1);
    await ledgerStub(env, account).applyRefundIntents(account);
    await tick();
    expect(await openOf("refund_intents_unsettled")).toEqual([]);
  });
});
