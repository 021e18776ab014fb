// Issue 49: "a fit that takes longer than a request should runs in the background (the evaluation runner) and the
// create call says how to wait for it". Creates go through the real app with the runner's kick a no-op
// (`quietCall`), and the test runs the account's calibration slice itself; the last test lets the account's real
// runner (the Durable Object) do it.
import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runCalibrationSlice } from "../../../workers/calibrations/background";
import { fitsInBackground, IN_REQUEST_ITEMS, IN_REQUEST_TOKENS } from "../../../workers/calibrations/service";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import { activeCalibrations } from "../../../workers/stores/calibrations";
import { quietCall } from "../../support/batch-runner";
import { insertDoneEvaluation, underConfidentChecks } from "../../support/calibrations";
import { consoleCall, signIn } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const q = sqlQuery(env);
const deps = () => buildServices(env);
const LARGE = IN_REQUEST_ITEMS + 50;

type Wire = {
  id: string;
  status: string;
  active: boolean;
  method: string | null;
  map: { temperature: number; bias: number[] } | null;
  n: number | null;
  metrics: unknown;
  question: unknown;
  deactivated: number | null;
  error: { code: string; param?: string; message: string } | null;
};

async function account() {
  const a = await seed({ keys: [{ mode: "live" }] });
  return { accountId: a.accountId, secret: a.keys[0]!.secret };
}

async function create(secret: string, evaluation: string) {
  const res = await quietCall("POST", "/v1/calibrations", {
    bearer: secret,
    body: { evaluation, question: "refund" },
  });
  const text = await res.text();
  return { status: res.status, location: res.headers.get("location"), body: JSON.parse(text) as Wire };
}

async function read(secret: string, id: string): Promise<Wire> {
  const res = await quietCall("GET", `/v1/calibrations/${id}`, { bearer: secret });
  expect(res.status).toBe(200);
  return (await res.json()) as Wire;
}

describe("issue 49: a stated bound for an in-request fit", () => {
  it("in the request up to 200 items and 60,000 input tokens; above either, on the account's runner", () => {
    expect(fitsInBackground({ total: IN_REQUEST_ITEMS, inputTokens: IN_REQUEST_TOKENS })).toBe(false);
    expect(fitsInBackground({ total: IN_REQUEST_ITEMS + 1, inputTokens: 0 })).toBe(true);
    expect(fitsInBackground({ total: 10, inputTokens: IN_REQUEST_TOKENS + 1 })).toBe(true);
    // A pick or rate solves one weight row per option or level: the bound is on items × rows.
    expect(fitsInBackground({ total: 50, inputTokens: 0 }, 4)).toBe(false);
    expect(fitsInBackground({ total: 51, inputTokens: 0 }, 4)).toBe(true);
  });

  it("a pick's bound counts its options: 80 items of a 3-option pick (240 rows of items) answer 202 `fitting`", async () => {
    const { secret, accountId } = await account();
    const pick = { type: "pick", instructions: "Which?", options: { a: null, b: null, c: null } };
    const evaluation = await insertDoneEvaluation(q, accountId, underConfidentChecks(80), { question: pick });
    const made = await create(secret, evaluation);
    expect(made.status).toBe(202);
    expect(made.body.status).toBe("fitting");
  });

  it("below the bound the create is unchanged: 201, `active`, fitted in the request", async () => {
    const { secret, accountId } = await account();
    const evaluation = await insertDoneEvaluation(q, accountId, underConfidentChecks(IN_REQUEST_ITEMS));
    const made = await create(secret, evaluation);
    expect(made.status).toBe(201);
    expect(made.location).toBeNull();
    expect(made.body).toMatchObject({ status: "active", active: true, n: IN_REQUEST_ITEMS, error: null });
  });
});

describe("issue 49: above the bound the fit runs in the background and the create says how to wait for it", () => {
  it("202 `fitting` with its id and a Location to GET at once; it never answers decides; the runner makes it `active`, as a synchronous create would", async () => {
    const { secret, accountId } = await account();
    const evaluation = await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE));
    const made = await create(secret, evaluation);
    expect(made.status).toBe(202);
    expect(made.location).toBe(`/v1/calibrations/${made.body.id}`);
    expect(made.body).toMatchObject({
      status: "fitting",
      active: false,
      method: null,
      map: null,
      n: null,
      metrics: null,
      question: null,
      error: null,
    });
    expect(await read(secret, made.body.id)).toEqual(made.body);
    expect(await activeCalibrations(deps().db, accountId)).toEqual([]);

    // After a fit the slice asks to run again at once (its event may be due); with nothing left, not.
    expect(await runCalibrationSlice(deps(), accountId)).not.toBeNull();
    expect(await runCalibrationSlice(deps(), accountId)).toBeNull();
    const done = await read(secret, made.body.id);
    expect(done).toMatchObject({ id: made.body.id, status: "active", active: true, n: LARGE, error: null });
    expect(done.method).toBe("temperature_bias");
    expect((await activeCalibrations(deps().db, accountId)).map((c) => c.id)).toEqual([made.body.id]);
    // The fit is kept: the preview of the same evaluation and question is the very same fit, in the request.
    const preview = await quietCall("POST", "/v1/calibration-previews", {
      bearer: secret,
      body: { evaluation, question: "refund" },
    });
    expect(((await preview.json()) as Wire).map).toEqual(done.map);
  });

  it("POST /v1/calibrations/{id}/activate of a fitting calibration is 409 calibration_not_fitted, never applied (issue 51 meets issue 49)", async () => {
    const { secret, accountId } = await account();
    const made = await create(secret, await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE)));
    expect(made.status).toBe(202);
    const res = await quietCall("POST", `/v1/calibrations/${made.body.id}/activate`, { bearer: secret });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("calibration_not_fitted");
    expect(await activeCalibrations(deps().db, accountId)).toEqual([]);
  });

  it("a fit that fails is `failed` with the error a synchronous create would have answered on the object; nothing applied", async () => {
    const { secret, accountId } = await account();
    const allYes = underConfidentChecks(LARGE).map((c) => ({ ...c, yes: true }));
    const evaluation = await insertDoneEvaluation(q, accountId, allYes);
    const made = await create(secret, evaluation);
    expect(made.status).toBe(202);
    await runCalibrationSlice(deps(), accountId);
    const failed = await read(secret, made.body.id);
    expect(failed).toMatchObject({ status: "failed", active: false, method: null });
    expect(failed.deactivated).not.toBeNull();
    // The synchronous answer of the same fit (a preview fits in the request): the same code, param and message.
    const sync = await quietCall("POST", "/v1/calibration-previews", {
      bearer: secret,
      body: { evaluation, question: "refund" },
    });
    expect(sync.status).toBe(422);
    const { error } = (await sync.json()) as { error: { code: string; param: string; message: string } };
    expect(failed.error).toEqual({ code: "too_few_labels", param: "question", message: error.message });
    expect(error.code).toBe("too_few_labels");
    expect(await activeCalibrations(deps().db, accountId)).toEqual([]);
  });

  it("two creates for the same question at once fit once; two fits of one question never leave two active ones", async () => {
    const { secret, accountId } = await account();
    const first = await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE, 1));
    const [a, b] = await Promise.all([create(secret, first), create(secret, first)]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.id).toBe(a.body.id);
    // Another evaluation of the same question, fitting beside it: both finish, the later replaces the earlier.
    const second = await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE, 2));
    const c = await create(secret, second);
    expect(c.body.id).not.toBe(a.body.id);
    expect(await runCalibrationSlice(deps(), accountId)).not.toBeNull();
    expect(await runCalibrationSlice(deps(), accountId)).not.toBeNull();
    expect(await runCalibrationSlice(deps(), accountId)).toBeNull();
    const active = await activeCalibrations(deps().db, accountId);
    expect(active.map((x) => x.id)).toEqual([c.body.id]);
    expect(await read(secret, a.body.id)).toMatchObject({ status: "inactive", active: false });
    expect(await read(secret, c.body.id)).toMatchObject({ status: "active", active: true });
  });

  it("the console's twin answers the same: 202 `fitting`, its Location under /v1/console/calibrations", async () => {
    const s = await signIn();
    const evaluation = await insertDoneEvaluation(q, s.accountId, underConfidentChecks(LARGE, 4));
    const res = await quietCall("POST", "/v1/console/calibrations", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { evaluation, question: "refund" },
    });
    expect(res.status).toBe(202);
    const made = (await res.json()) as Wire;
    expect(made).toMatchObject({ status: "fitting", active: false });
    expect(res.headers.get("location")).toBe(`/v1/console/calibrations/${made.id}`);
    await runCalibrationSlice(deps(), s.accountId);
    const got = await quietCall("GET", `/v1/console/calibrations/${made.id}`, { cookie: s.cookie });
    expect(((await got.json()) as Wire).status).toBe("active");
  });

  it("a fitting calibration deleted before its fit finishes is never applied", async () => {
    const { secret, accountId } = await account();
    const evaluation = await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE));
    const made = await create(secret, evaluation);
    const del = await quietCall("DELETE", `/v1/calibrations/${made.body.id}`, { bearer: secret });
    expect(((await del.json()) as Wire).status).toBe("inactive");
    expect(await runCalibrationSlice(deps(), accountId)).toBeNull();
    expect(await read(secret, made.body.id)).toMatchObject({
      status: "inactive",
      active: false,
      method: null,
    });
    expect(await activeCalibrations(deps().db, accountId)).toEqual([]);
  });

  it("the cap on a background fit: one not finished after 3 tries is `failed` with internal_error", async () => {
    const { secret, accountId } = await account();
    const evaluation = await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE));
    const made = await create(secret, evaluation);
    await q("UPDATE calibrations SET attempts = 3 WHERE id = $1", [made.body.id]);
    await runCalibrationSlice(deps(), accountId);
    const failed = await read(secret, made.body.id);
    expect(failed).toMatchObject({ status: "failed", active: false });
    expect(failed.error?.code).toBe("internal_error");
  });

  it("the account's runner (the Durable Object, kicked by the create) fits it: GET shows it `active`", async () => {
    const { secret, accountId } = await account();
    const evaluation = await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE, 3));
    const res = await consoleCall("POST", "/v1/calibrations", {
      bearer: secret,
      body: { evaluation, question: "refund" },
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as Wire;
    expect(res.headers.get("location")).toBe(`/v1/calibrations/${id}`);
    let now: Wire | null = null;
    for (let i = 0; i < 100; i++) {
      const r = await consoleCall("GET", `/v1/calibrations/${id}`, { bearer: secret });
      now = (await r.json()) as Wire;
      if (now.status !== "fitting") break;
      await new Promise((ok) => setTimeout(ok, 200));
    }
    expect(now).toMatchObject({ id, status: "active", active: true, n: LARGE });
  });
});

describe("issue 49: the end of a background fit is an account webhook event (`calibration.ready`, `calibration.failed`)", () => {
  type Delivery = { type: string; payload: string };
  const deliveries = async (accountId: string) =>
    (await q("SELECT type, payload FROM webhook_deliveries WHERE account_id = $1 ORDER BY id", [
      accountId,
    ])) as Delivery[];
  const withEndpoint = async () => {
    const a = await account();
    await q(
      "INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, $2, 'https://hooks.example.com/svc')",
      [a.accountId, `we_${a.accountId.slice(-8)}`],
    );
    return a;
  };

  it("`calibration.ready` once, its data.object the Calibration exactly as GET then answers", async () => {
    const { secret, accountId } = await withEndpoint();
    const made = await create(
      secret,
      await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE, 5)),
    );
    expect(await deliveries(accountId)).toEqual([]);
    await runCalibrationSlice(deps(), accountId);
    await runCalibrationSlice(deps(), accountId);
    const [only, ...rest] = await deliveries(accountId);
    expect(rest).toEqual([]);
    expect(only?.type).toBe("calibration.ready");
    const event = JSON.parse(only!.payload) as {
      id: string;
      object: string;
      type: string;
      data: { object: Wire };
    };
    expect(event).toMatchObject({ object: "event", type: "calibration.ready" });
    expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(event.data.object).toEqual(await read(secret, made.body.id));
  });

  it("`calibration.failed` with the object's error; none when the account has no endpoint", async () => {
    const { secret, accountId } = await withEndpoint();
    const allYes = underConfidentChecks(LARGE).map((c) => ({ ...c, yes: true }));
    const made = await create(secret, await insertDoneEvaluation(q, accountId, allYes));
    await runCalibrationSlice(deps(), accountId);
    const [only] = await deliveries(accountId);
    expect(only?.type).toBe("calibration.failed");
    const failed = await read(secret, made.body.id);
    expect(failed.status).toBe("failed");
    expect((JSON.parse(only!.payload) as { data: { object: Wire } }).data.object).toEqual(failed);

    const without = await account();
    await create(
      without.secret,
      await insertDoneEvaluation(q, without.accountId, underConfidentChecks(LARGE, 6)),
    );
    await runCalibrationSlice(deps(), without.accountId);
    expect(await deliveries(without.accountId)).toEqual([]);
  });

  it("a fit deleted before it ends sends nothing", async () => {
    const { secret, accountId } = await withEndpoint();
    const made = await create(
      secret,
      await insertDoneEvaluation(q, accountId, underConfidentChecks(LARGE, 7)),
    );
    await quietCall("DELETE", `/v1/calibrations/${made.body.id}`, { bearer: secret });
    await runCalibrationSlice(deps(), accountId);
    expect(await deliveries(accountId)).toEqual([]);
  });

  it("the webhook endpoint lists every event it is called with", async () => {
    const s = await signIn();
    const res = await quietCall("POST", "/v1/console/webhook-endpoint", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { url: "https://hooks.example.com/svc" },
    });
    expect(((await res.json()) as { events: string[] }).events).toEqual([
      "batch.completed",
      "batch.failed",
      "batch.expired",
      "batch.cancelled",
      "question.drifted",
      "calibration.ready",
      "calibration.failed",
    ]);
  });
});
