// Issue 50 item 8: bad Stripe signatures wrote one Postgres upsert per unauthenticated request and could
// open the operator's `stripe_signature_failures` alert at will.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../workers/app";
import { STRIPE_WEBHOOK_IPS } from "../../../workers/clients/stripe";
import { buildServices } from "../../../workers/services";
import type { Database } from "../../../workers/stores/db";

const r = () => 1 + Math.floor(Math.random() * 250);

/** The app with its database watched: every SQL text it runs, in order. */
function watchedApp() {
  const statements: string[] = [];
  const app = createApp((e) => {
    const services = buildServices(e);
    const db: Database = {
      configured: services.db.configured,
      transaction: (fn) => services.db.transaction(fn),
      sql: () =>
        new Proxy(services.db.sql(), {
          get(target, prop, receiver) {
            if (prop !== "query") return Reflect.get(target, prop, receiver);
            return (text: string, params?: unknown[]) => {
              statements.push(text);
              return target.query(text, params);
            };
          },
        }),
    };
    return { ...services, db };
  });
  const post = async (ip: string) => {
    const res = await app.request(
      "https://svc.test/v1/webhooks/stripe",
      {
        method: "POST",
        headers: {
          "stripe-signature": "t=1,v1=00",
          "content-type": "application/json",
          "cf-connecting-ip": ip,
        },
        body: "{}",
      },
      env,
    );
    // Whatever the handler left to run after the response has had its turn.
    await new Promise((done) => setTimeout(done, 20));
    return res;
  };
  const signalWrites = () => statements.filter((s) => s.includes("ops_signal_counts")).length;
  return { post, signalWrites };
}

describe("issue 50 item 8: bad Stripe signatures", () => {
  it("'count them in Redis with a per-network limit, and alert on what an attacker cannot drive alone': 30 forged posts from 30 networks write nothing to Postgres", async () => {
    const { post, signalWrites } = watchedApp();
    for (let i = 0; i < 30; i++) expect((await post(`${r()}.${r()}.${r()}.7`)).status).toBe(400);
    expect(signalWrites()).toBe(0);
  });

  it("a bad signature from one of Stripe's published webhook addresses is counted for the alert (only Stripe can send it)", async () => {
    const { post, signalWrites } = watchedApp();
    expect((await post(STRIPE_WEBHOOK_IPS[0]!)).status).toBe(400);
    expect(signalWrites()).toBe(1);
  });

  it("one network past 20 bad signatures a minute → 429 requests_per_minute with retry-after", async () => {
    const { post } = watchedApp();
    const ip = `${r()}.${r()}.${r()}.9`;
    for (let i = 0; i < 20; i++) expect((await post(ip)).status).toBe(400);
    const over = await post(ip);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("requests_per_minute");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
