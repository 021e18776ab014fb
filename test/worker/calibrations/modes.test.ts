import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
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
import { consoleCall, signIn } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { bearer, expectError, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const q = sqlQuery(env);
const P_YES = 0.7123456;

type Made = { id: string; mode: string; active: boolean };

async function decide(secret: string): Promise<Record<string, any>> {
  const engine = fixedCheckEngine(P_YES) as unknown as Engine;
  const res = await createApp((e) => ({ ...buildServices(e), engine })).request(
    "/v1/decide",
    {
      method: "POST",
      headers: { ...bearer(secret), "content-type": "application/json" },
      body: JSON.stringify({
        model: "svc-1.5.1",
        state: "My parcel arrived broken.",
        questions: { refund: REFUND_CHECK },
      }),
    },
    env,
  );
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text).answers.refund;
}

const create = async (secret: string, evaluation: string) => {
  const res = await consoleCall("POST", "/v1/calibrations", {
    bearer: secret,
    body: { evaluation, question: "refund" },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Made;
};

/** An account with a live and a test key, funded, and a done evaluation of REFUND_CHECK. */
async function account() {
  const a = await seed({ keys: [{ mode: "live" }, { mode: "test" }] });
  await buildServices(env)
    .ledger(a.accountId)
    .credit({ account_id: a.accountId, payment_id: `pay_${a.accountId}`, amount_micro_cents: 10_000_000 });
  const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(200));
  return { live: a.keys[0]!.secret, test: a.keys[1]!.secret, evaluation, accountId: a.accountId };
}

describe("issue 50 item 1: a test key alone never changes what a live decide answers", () => {
  it("a calibration made with a test key is `mode: test`: it answers the account's test decides, never its live ones", async () => {
    const a = await account();
    const made = await create(a.test, a.evaluation);
    expect(made.mode).toBe("test");
    expect((await decide(a.test)).calibration).toBe(made.id);
    const live = await decide(a.live);
    expect(live).not.toHaveProperty("calibration");
    expect(live.probability).toBe(0.7123);
  });

  it("a live key's calibration is `mode: live`: it answers live decides, and test decides too while no test one exists; a test one wins for test decides", async () => {
    const a = await account();
    const live = await create(a.live, a.evaluation);
    expect(live.mode).toBe("live");
    expect((await decide(a.live)).calibration).toBe(live.id);
    expect((await decide(a.test)).calibration).toBe(live.id);
    const test = await create(a.test, a.evaluation);
    expect((await decide(a.test)).calibration).toBe(test.id);
    expect((await decide(a.live)).calibration).toBe(live.id);
    // One active per mode: the test one did not replace the live one.
    const got = (await (
      await consoleCall("GET", `/v1/calibrations/${live.id}`, { bearer: a.live })
    ).json()) as Made;
    expect(got.active).toBe(true);
  });

  it("a test key cannot see, list or delete a live calibration (404 calibration_not_found, as an unknown id); a live key cannot see a test one", async () => {
    const a = await account();
    const live = await create(a.live, a.evaluation);
    const test = await create(a.test, a.evaluation);
    await expectError(
      await consoleCall("DELETE", `/v1/calibrations/${live.id}`, { bearer: a.test }),
      404,
      "calibration_not_found",
      "id",
    );
    await expectError(
      await consoleCall("GET", `/v1/calibrations/${live.id}`, { bearer: a.test }),
      404,
      "calibration_not_found",
      "id",
    );
    await expectError(
      await consoleCall("GET", `/v1/calibrations/${test.id}`, { bearer: a.live }),
      404,
      "calibration_not_found",
      "id",
    );
    const listed = async (secret: string) =>
      (
        (await (await consoleCall("GET", "/v1/calibrations", { bearer: secret })).json()) as { data: Made[] }
      ).data.map((c) => c.id);
    expect(await listed(a.test)).toEqual([test.id]);
    expect(await listed(a.live)).toEqual([live.id]);
    expect((await decide(a.live)).calibration).toBe(live.id);
  });

  it("a console session makes live calibrations (the promotion) and sees and deletes both modes", async () => {
    const s = await signIn();
    const keyOf = async (mode: "live" | "test") => {
      const res = await consoleCall("POST", "/v1/console/keys", {
        cookie: s.cookie,
        csrf: s.csrf,
        body: { name: mode, mode },
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { secret: string }).secret;
    };
    const [test, live] = [await keyOf("test"), await keyOf("live")];
    await buildServices(env)
      .ledger(s.accountId)
      .credit({ account_id: s.accountId, payment_id: `pay_${s.accountId}`, amount_micro_cents: 10_000_000 });
    const evaluation = await insertDoneEvaluation(q, s.accountId, underConfidentChecks(200));
    const tried = await create(test, evaluation);
    expect((await decide(live)).calibration).toBeUndefined();
    const res = await consoleCall("POST", "/v1/console/calibrations", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { evaluation, question: "refund" },
    });
    expect(res.status).toBe(201);
    const promoted = (await res.json()) as Made;
    expect(promoted.mode).toBe("live");
    expect((await decide(live)).calibration).toBe(promoted.id);
    const all = (await (
      await consoleCall("GET", "/v1/console/calibrations", { cookie: s.cookie })
    ).json()) as {
      data: Made[];
    };
    expect(all.data.map((c) => c.id)).toEqual([promoted.id, tried.id]);
    const del = await consoleCall("DELETE", `/v1/console/calibrations/${tried.id}`, {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(((await del.json()) as Made).active).toBe(false);
  });
});
