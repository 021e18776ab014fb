import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { roundUnits } from "../../../schema/answers";
import { applyMap } from "../../../schema/calibration-map";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { createApp } from "../../../workers/app";
import type { Engine } from "../../../workers/clients/engine";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import {
  fixedCheckEngine,
  insertDoneEvaluation,
  REFUND_CHECK,
  underConfidentChecks,
} from "../../support/calibrations";
import { consoleCall } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { bearer, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const q = sqlQuery(env);
/** The version's unrounded P(yes) for every check in these tests. */
const P_YES = 0.7123456;

/** A fresh app (fresh key cache) whose GPU answers every check with P_YES; `seen` collects its requests. */
function app(seen: ScoreRequest[] = []) {
  const engine = fixedCheckEngine(P_YES, seen) as unknown as Engine;
  return createApp((e) => ({ ...buildServices(e), engine }));
}

async function decide(
  secret: string,
  body: Record<string, unknown>,
  o: { idempotencyKey?: string; seen?: ScoreRequest[] } = {},
): Promise<{ status: number; text: string; json: Record<string, any> }> {
  const headers: Record<string, string> = { ...bearer(secret), "content-type": "application/json" };
  if (o.idempotencyKey) headers["idempotency-key"] = o.idempotencyKey;
  const res = await app(o.seen).request(
    "/v1/decide",
    { method: "POST", headers, body: JSON.stringify(body) },
    env,
  );
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

const body = (questions: Record<string, unknown>, model = "svc-1.5.1") => ({
  model,
  state: "My parcel arrived broken.",
  questions,
});

/** An account with a test key and an active calibration of REFUND_CHECK on svc-1.5.1. */
async function calibratedAccount() {
  const a = await seed({ keys: [{ mode: "test" }, { mode: "live" }] });
  const key = a.keys[0]!.secret;
  const e = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(200));
  const res = await consoleCall("POST", "/v1/calibrations", {
    bearer: key,
    body: { evaluation: e, question: "refund" },
  });
  const c = (await res.json()) as { id: string; map: { temperature: number; bias: number[] } };
  return { account: a, key, calibration: c, evaluation: e };
}

const expectedYes = (map: { temperature: number; bias: number[] }) =>
  roundUnits(applyMap(map, [P_YES, 1 - P_YES]))[0]! / 10_000;

describe("decides answer a calibrated question with the account's map (issue 44)", () => {
  it("the matching question answers with the map and says so in `calibration`; the other question, byte for byte as before", async () => {
    const { key, calibration } = await calibratedAccount();
    const seen: ScoreRequest[] = [];
    const d = await decide(
      key,
      body({ refund: REFUND_CHECK, other: { type: "check", instructions: "Is it polite?" } }),
      {
        seen,
      },
    );
    expect(d.status, d.text).toBe(200);
    expect(d.json.calibration).toBe("cal-20261126-0"); // the Decision's stays the version's artifact
    expect(d.json.answers.refund.calibration).toBe(calibration.id);
    expect(d.json.answers.refund.probability).toBe(expectedYes(calibration.map));
    expect(d.json.answers.refund.probability).not.toBe(0.7123);
    expect(d.text).toContain(`"other":{"type":"check","probability":0.7123,"confidence":`);
    expect(d.json.answers.other).not.toHaveProperty("calibration");
    expect(seen[0]?.distributions).toBe(true);
    // Only `calibration` is added, after the spec's fields.
    expect(Object.keys(d.json.answers.refund)).toEqual([
      "type",
      "probability",
      "confidence",
      "abstained",
      "calibration",
    ]);
  });

  it("`min_confidence` is not part of the question: it is applied after calibration", async () => {
    const { key, calibration } = await calibratedAccount();
    const d = await decide(key, body({ refund: { ...REFUND_CHECK, min_confidence: 0.99 } }));
    expect(d.json.answers.refund).toMatchObject({ calibration: calibration.id, abstained: true });
  });

  it("an edited question, another exact version, another account: answered exactly as before, no lookup asked of the worker", async () => {
    const { key } = await calibratedAccount();
    const plain = await seed({ keys: [{ mode: "test" }] });
    for (const [secret, b] of [
      [key, body({ refund: { ...REFUND_CHECK, instructions: "Does the customer want a refund?" } })],
      [key, body({ refund: REFUND_CHECK }, "svc-1.4.0")],
      [plain.keys[0]!.secret, body({ refund: REFUND_CHECK })],
    ] as const) {
      const seen: ScoreRequest[] = [];
      const d = await decide(secret, b, { seen });
      expect(d.status, d.text).toBe(200);
      expect(d.json.answers.refund).not.toHaveProperty("calibration");
      expect(d.json.answers.refund.probability).toBe(0.7123);
      expect(seen[0]).not.toHaveProperty("distributions");
    }
  });

  it("billing does not change: the same tokens and charge as the same decide of an account without calibrations", async () => {
    const { account, evaluation } = await calibratedAccount();
    const liveKey = account.keys[1]!.secret;
    // A live decide answers with a live calibration only (issue 50): the live key makes one.
    await consoleCall("POST", "/v1/calibrations", {
      bearer: liveKey,
      body: { evaluation, question: "refund" },
    });
    const ledger = buildServices(env).ledger(account.accountId);
    await ledger.credit({ account_id: account.accountId, payment_id: "pay", amount_micro_cents: 1_000_000 });
    const calibrated = await decide(liveKey, body({ refund: REFUND_CHECK }));
    expect(calibrated.json.answers.refund.calibration).toBeDefined();
    expect(calibrated.json.usage.charge_micro_cents).toBe(calibrated.json.usage.input_tokens * 5);
    expect((await ledger.balance()).balance_micro_cents).toBe(
      1_000_000 - calibrated.json.usage.charge_micro_cents,
    );
    const plain = await seed({ keys: [{ mode: "test" }] });
    const uncalibrated = await decide(plain.keys[0]!.secret, body({ refund: REFUND_CHECK }));
    expect(uncalibrated.json.usage.input_tokens).toBe(calibrated.json.usage.input_tokens);
  });

  it("a replay recomputes on the original version with the same calibration, byte-identical, also after it was deleted", async () => {
    const { key, calibration } = await calibratedAccount();
    const b = body({ refund: REFUND_CHECK });
    const original = await decide(key, b, { idempotencyKey: "calibrated-1" });
    expect(original.json.answers.refund.calibration).toBe(calibration.id);
    const del = await consoleCall("DELETE", `/v1/calibrations/${calibration.id}`, { bearer: key });
    expect(del.status).toBe(200);
    const fresh = await decide(key, b);
    expect(fresh.json.answers.refund).not.toHaveProperty("calibration");
    const seen: ScoreRequest[] = [];
    const replay = await decide(key, b, { idempotencyKey: "calibrated-1", seen });
    expect(replay.text).toBe(original.text);
    expect(seen[0]?.distributions).toBe(true);
  });

  it("a replay of an uncalibrated original stays uncalibrated after the account calibrates that question", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const key = a.keys[0]!.secret;
    const b = body({ refund: REFUND_CHECK });
    const original = await decide(key, b, { idempotencyKey: "before-calibrating" });
    const e = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(200));
    expect(
      (
        await consoleCall("POST", "/v1/calibrations", {
          bearer: key,
          body: { evaluation: e, question: "refund" },
        })
      ).status,
    ).toBe(201);
    expect((await decide(key, b)).json.answers.refund.calibration).toBeDefined();
    expect((await decide(key, b, { idempotencyKey: "before-calibrating" })).text).toBe(original.text);
  });

  it("a fallback answer never uses an account's map", async () => {
    const { key } = await calibratedAccount();
    const engine = {
      dispatch: async (req: ScoreRequest) => ({
        ...(await fixedCheckEngine(P_YES).dispatch(req)),
        served_by: "fallback" as const,
      }),
    } as unknown as Engine;
    const res = await createApp((e) => ({ ...buildServices(e), engine })).request(
      "/v1/decide",
      {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: JSON.stringify(body({ refund: REFUND_CHECK })),
      },
      env,
    );
    const d = (await res.json()) as { answers: { refund: Record<string, unknown> } };
    expect(d.answers.refund).not.toHaveProperty("calibration");
    expect(d.answers.refund.probability).toBe(0.7123);
  });
});
