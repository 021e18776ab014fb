import { env as cfEnv } from "cloudflare:test";
import { expect } from "vitest";
import { createApp } from "../../../workers/app";
import type { Engine } from "../../../workers/clients/engine";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import { fixedCheckEngine, REFUND_CHECK } from "../../support/calibrations";
import { consoleCall } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { bearer, seed } from "../../support/worker-http";

/** An answer as the tests read it. */
// biome-ignore lint/suspicious/noExplicitAny: tests read whatever fields the answer has
export type Obj = Record<string, any>;

export const env = cfEnv as unknown as Env;
export const q = sqlQuery(env);

/** A decide of REFUND_CHECK answered P(yes) = `pYes` (confidence max(p, 1 − p)); its request id. */
export async function decide(
  secret: string,
  pYes: number,
  state = "My parcel arrived broken.",
  questions: Record<string, unknown> = { refund: REFUND_CHECK },
): Promise<string> {
  const engine = fixedCheckEngine(pYes) as unknown as Engine;
  const res = await createApp((e) => ({ ...buildServices(e), engine })).request(
    "/v1/decide",
    {
      method: "POST",
      headers: { ...bearer(secret), "content-type": "application/json" },
      body: JSON.stringify({ model: "svc-1.5.1", state, questions }),
    },
    env,
  );
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text).id as string;
}

/** An account with two live keys (two reviewers) and a test key, funded. */
export async function account() {
  const a = await seed({ keys: [{ mode: "live" }, { mode: "test" }, { mode: "live" }] });
  await buildServices(env)
    .ledger(a.accountId)
    .credit({ account_id: a.accountId, payment_id: `pay_${a.accountId}`, amount_micro_cents: 10_000_000 });
  return {
    live: a.keys[0]!.secret,
    test: a.keys[1]!.secret,
    live2: a.keys[2]!.secret,
    accountId: a.accountId,
  };
}

/** A JSON call with a key (`consoleCall` also speaks bearer). */
export async function api(method: string, path: string, secret: string, body?: unknown) {
  const res = await consoleCall(method, path, { bearer: secret, ...(body !== undefined && { body }) });
  return { res, json: async () => JSON.parse(await res.clone().text()) as Obj };
}

/** Creates a rule (201) and returns it. */
export async function createRule(secret: string, body: Record<string, unknown> = {}) {
  const { res, json } = await api("POST", "/v1/review-rules", secret, {
    question: REFUND_CHECK,
    model: "svc-1.5.1",
    when: { below_confidence: 0.8, sample_rate: 0 },
    ...body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return json();
}

/** The kept items of `rule` once `n` are there (the capture writes after the response). */
export async function waitForReviews(secret: string, rule: string, n: number): Promise<Obj[]> {
  for (let i = 0; i < 100; i++) {
    const { json } = await api("GET", `/v1/reviews?rule=${rule}&limit=100`, secret);
    const data = (await json()).data as Obj[];
    if (data.length >= n) return data;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`rule ${rule} never kept ${n} items`);
}
