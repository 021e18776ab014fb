import { env as cfEnv } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { CALIBRATION_ID_PATTERN } from "../../../schema/calibrations";
import type { Env } from "../../../workers/env";
import { insertDoneEvaluation, REFUND_CHECK, underConfidentChecks } from "../../support/calibrations";
import { consoleCall, signIn } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { expectError, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const q = sqlQuery(env);

let live = "";
let test = "";
let usageOnly = "";
let accountId = "";
let evaluation = "";
beforeAll(async () => {
  const a = await seed({
    keys: [{ mode: "live" }, { mode: "test" }, { mode: "test", scopes: ["usage:read"] }],
  });
  [live, test, usageOnly] = a.keys.map((k) => k.secret) as [string, string, string];
  accountId = a.accountId;
  evaluation = await insertDoneEvaluation(q, accountId, underConfidentChecks(200));
});

const create = (secret: string, body: unknown) =>
  consoleCall("POST", "/v1/calibrations", { bearer: secret, body });
type Calibration = {
  id: string;
  active: boolean;
  model: string;
  question: unknown;
  method: string;
  n: number;
  map: { temperature: number; bias: number[] };
  metrics: { folds: number; before: Record<string, unknown>; after: Record<string, unknown> };
};

describe("POST /v1/calibrations (issue 44: any key of the account with `decide`, live or test)", () => {
  it("201 a calibration object: the exact version, the question as written, the method, n and cross-validated metrics before and after", async () => {
    const res = await create(live, { evaluation, question: "refund" });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    const c = JSON.parse(text) as Calibration;
    expect(c.id).toMatch(CALIBRATION_ID_PATTERN);
    expect(c).toMatchObject({
      object: "calibration",
      model: "svc-1.5.1",
      evaluation,
      question_id: "refund",
      question: REFUND_CHECK,
      method: "temperature_bias",
      n: 200,
      active: true,
      deactivated: null,
    });
    expect(c.map.temperature).toBeLessThan(0.8); // under-confident answers get sharper
    expect(c.map.bias[1]).toBe(0);
    expect(c.metrics.folds).toBe(5);
    for (const side of ["before", "after"] as const)
      expect(Object.keys(c.metrics[side])).toEqual([
        "n",
        "accuracy",
        "ece15",
        "ece15_noise_floor",
        "nll",
        "brier",
        "auc",
        "reliability",
        "thresholds",
      ]);
    expect(c.metrics.after.nll as number).toBeLessThan(c.metrics.before.nll as number);
    // A check's map never reorders its answers (test/unit/calibrations); across folds the maps differ a little,
    // so the pooled cross-validated AUC moves by at most that.
    expect(Math.abs((c.metrics.after.auc as number) - (c.metrics.before.auc as number))).toBeLessThan(0.01);
  });

  it("a test key may create one too; a key without `decide` 403 insufficient_scope; no key 401", async () => {
    expect((await create(test, { evaluation, question: "refund" })).status).toBe(201);
    await expectError(await create(usageOnly, { evaluation, question: "refund" }), 403, "insufficient_scope");
    await expectError(await consoleCall("POST", "/v1/calibrations", { body: {} }), 401, "missing_api_key");
  });

  it.each<[string, unknown, number, string, string | undefined]>([
    ["not JSON", "{", 400, "invalid_json", undefined],
    [
      "unknown field",
      { evaluation: "eval_01JD0000000000000000000000", question: "q", x: 1 },
      422,
      "unknown_field",
      "x",
    ],
    ["missing question", { evaluation: "eval_01JD0000000000000000000000" }, 422, "missing_field", "question"],
    ["evaluation not an id", { evaluation: "e1", question: "q" }, 422, "invalid_value", "evaluation"],
    [
      "question not a question id",
      { evaluation: "eval_01JD0000000000000000000000", question: "1x" },
      422,
      "invalid_value",
      "question",
    ],
    [
      "404 evaluation_not_found",
      { evaluation: "eval_01JD0000000000000000000000", question: "refund" },
      404,
      "evaluation_not_found",
      "evaluation",
    ],
  ])("%s", async (_name, body, status, code, param) => {
    await expectError(await create(live, body), status, code, param);
  });

  it("another account's evaluation is 404 evaluation_not_found", async () => {
    const other = await seed({ keys: [{ mode: "test" }] });
    await expectError(
      await create(other.keys[0]!.secret, { evaluation, question: "refund" }),
      404,
      "evaluation_not_found",
      "evaluation",
    );
  });

  it("409 evaluation_not_done while the evaluation runs", async () => {
    const running = await insertDoneEvaluation(q, accountId, underConfidentChecks(60), { status: "running" });
    await expectError(
      await create(live, { evaluation: running, question: "refund" }),
      409,
      "evaluation_not_done",
      "evaluation",
    );
  });

  it("422 invalid_value `question` when no item has that question id, or when items disagree on its definition", async () => {
    await expectError(await create(live, { evaluation, question: "mood" }), 422, "invalid_value", "question");
    const mixed = await insertDoneEvaluation(q, accountId, underConfidentChecks(80));
    await q(
      `UPDATE evaluation_items SET request = replace(request, 'a refund?', 'a refund now?') WHERE evaluation_id = $1 AND idx = 40`,
      [mixed],
    );
    await expectError(
      await create(live, { evaluation: mixed, question: "refund" }),
      422,
      "invalid_value",
      "question",
    );
  });

  it("422 too_few_labels: a check needs 30 of each answer", async () => {
    const few = await insertDoneEvaluation(
      q,
      accountId,
      underConfidentChecks(100).map((c, i) => ({ ...c, yes: i < 20 })),
    );
    const err = await expectError(
      await create(live, { evaluation: few, question: "refund" }),
      422,
      "too_few_labels",
      "question",
    );
    expect(err.message).toContain("20 items expected yes");
  });

  it("422 calibration_no_gain when the cross-validated NLL is not better than the version's map (the message gives both)", async () => {
    const coinFlips = Array.from({ length: 60 }, (_, i) => ({ pYes: 0.5, yes: i % 2 === 0 }));
    const flat = await insertDoneEvaluation(q, accountId, coinFlips);
    const err = await expectError(
      await create(live, { evaluation: flat, question: "refund" }),
      422,
      "calibration_no_gain",
      "question",
    );
    expect(err.message).toMatch(/NLL 0\.69\d+ .* against 0\.6931/);
  });

  it("an evaluation scored before answers kept their distributions → 422 evaluation_outdated (run it again)", async () => {
    const old = await insertDoneEvaluation(q, accountId, underConfidentChecks(80), { distributions: false });
    const err = await expectError(
      await create(live, { evaluation: old, question: "refund" }),
      422,
      "evaluation_outdated",
      "evaluation",
    );
    expect(err.message).toContain("again");
  });
});

describe("one active calibration per (account, exact version, question fingerprint)", () => {
  it("a new one for the same question replaces the old one, which stays readable, inactive", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const key = a.keys[0]!.secret;
    const e = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 3));
    const first = (await (await create(key, { evaluation: e, question: "refund" })).json()) as Calibration;
    const second = (await (await create(key, { evaluation: e, question: "refund" })).json()) as Calibration;
    expect(second.active).toBe(true);
    const old = (await (
      await consoleCall("GET", `/v1/calibrations/${first.id}`, { bearer: key })
    ).json()) as Calibration & {
      deactivated: number | null;
    };
    expect(old.active).toBe(false);
    expect(old.deactivated).toEqual(expect.any(Number));
    // A question written differently (criteria added) is another question: both stay active.
    const other = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 3), {
      question: { ...REFUND_CHECK, criteria: "A refund of money, not a replacement." },
    });
    const third = (await (
      await create(key, { evaluation: other, question: "refund" })
    ).json()) as Calibration;
    const list = (await (await consoleCall("GET", "/v1/calibrations", { bearer: key })).json()) as {
      data: Calibration[];
      has_more: boolean;
    };
    expect(list.data.map((c) => [c.id, c.active])).toEqual([
      [third.id, true],
      [second.id, true],
      [first.id, false],
    ]);
    const page = (await (
      await consoleCall("GET", `/v1/calibrations?limit=1&starting_after=${third.id}`, { bearer: key })
    ).json()) as {
      data: Calibration[];
      has_more: boolean;
    };
    expect(page.data.map((c) => c.id)).toEqual([second.id]);
    expect(page.has_more).toBe(true);
    await expectError(
      await consoleCall("GET", "/v1/calibrations?limit=0", { bearer: key }),
      422,
      "invalid_value",
      "limit",
    );
  });

  it("at most 1,000 active per account: the next → 409 calibration_limit_reached; replacing one at the cap is allowed", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const key = a.keys[0]!.secret;
    const e = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 5));
    const kept = (await (await create(key, { evaluation: e, question: "refund" })).json()) as Calibration;
    await q(
      `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, model, fingerprint, question, method, map, n, metrics)
       SELECT 'calib_FILL' || lpad(g::text, 22, '0'), $1, $2, 'q', 'svc-1.5.1', 'fp' || g, '{}', 'temperature', '{"temperature":1,"bias":[0,0]}', 1, '{}'
         FROM generate_series(1, 999) AS g`,
      [a.accountId, e],
    );
    const other = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 5), {
      question: { ...REFUND_CHECK, instructions: "Is a refund asked for?" },
    });
    await expectError(
      await create(key, { evaluation: other, question: "refund" }),
      409,
      "calibration_limit_reached",
    );
    const again = await create(key, { evaluation: e, question: "refund" });
    expect(again.status).toBe(201);
    const old = (await (
      await consoleCall("GET", `/v1/calibrations/${kept.id}`, { bearer: key })
    ).json()) as Calibration;
    expect(old.active).toBe(false);
  });
});

describe("GET and DELETE /v1/calibrations/{id}", () => {
  it("DELETE → 200 with active false; the object stays readable; another account's id is 404", async () => {
    const made = (await (await create(live, { evaluation, question: "refund" })).json()) as Calibration;
    const del = await consoleCall("DELETE", `/v1/calibrations/${made.id}`, { bearer: live });
    expect(del.status).toBe(200);
    expect(((await del.json()) as Calibration).active).toBe(false);
    const read = await consoleCall("GET", `/v1/calibrations/${made.id}`, { bearer: live });
    expect(((await read.json()) as Calibration).active).toBe(false);
    const other = await seed({ keys: [{ mode: "test" }] });
    await expectError(
      await consoleCall("GET", `/v1/calibrations/${made.id}`, { bearer: other.keys[0]!.secret }),
      404,
      "calibration_not_found",
      "id",
    );
    await expectError(
      await consoleCall("DELETE", "/v1/calibrations/calib_nope", { bearer: live }),
      404,
      "calibration_not_found",
      "id",
    );
  });
});

describe("the console's twins under /v1/console/calibrations (session + CSRF)", () => {
  it("create, list, get and delete with the session; a write without CSRF is 403 csrf_failed", async () => {
    const s = await signIn();
    const e = await insertDoneEvaluation(q, s.accountId, underConfidentChecks(100, 9));
    await expectError(
      await consoleCall("POST", "/v1/console/calibrations", {
        cookie: s.cookie,
        body: { evaluation: e, question: "refund" },
      }),
      403,
      "csrf_failed",
    );
    const made = await consoleCall("POST", "/v1/console/calibrations", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { evaluation: e, question: "refund" },
    });
    expect(made.status).toBe(201);
    const c = (await made.json()) as Calibration;
    const list = (await (
      await consoleCall("GET", "/v1/console/calibrations", { cookie: s.cookie })
    ).json()) as {
      data: Calibration[];
    };
    expect(list.data.map((x) => x.id)).toEqual([c.id]);
    expect((await consoleCall("GET", `/v1/console/calibrations/${c.id}`, { cookie: s.cookie })).status).toBe(
      200,
    );
    const del = await consoleCall("DELETE", `/v1/console/calibrations/${c.id}`, {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(((await del.json()) as Calibration).active).toBe(false);
  });
});

describe("POST /v1/calibration-previews: the same fit, stored nowhere, applied to nothing", () => {
  it("200 a calibration_preview with id null; the account's calibrations are unchanged", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const key = a.keys[0]!.secret;
    const e = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 13));
    const res = await consoleCall("POST", "/v1/calibration-previews", {
      bearer: key,
      body: { evaluation: e, question: "refund" },
    });
    expect(res.status).toBe(200);
    const p = (await res.json()) as Omit<Calibration, "id"> & { id: null; object: string };
    expect(p).toMatchObject({ id: null, object: "calibration_preview", active: false, n: 100 });
    const made = (await (await create(key, { evaluation: e, question: "refund" })).json()) as Calibration;
    expect(made.map).toEqual(p.map);
    expect(made.metrics).toEqual(p.metrics);
    const list = (await (await consoleCall("GET", "/v1/calibrations", { bearer: key })).json()) as {
      data: unknown[];
    };
    expect(list.data).toHaveLength(1);
  });
});
