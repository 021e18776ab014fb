import { beforeAll, describe, expect, it } from "vitest";
import { EVALUATION_ID_PATTERN } from "../../../schema/evaluations";
import { consoleCall, signIn } from "../../support/console";
import { expectError, seed } from "../../support/worker-http";

let test = "";
let live = "";
let usageOnly = "";
let accountId = "";
beforeAll(async () => {
  const a = await seed({
    keys: [{ mode: "test" }, { mode: "live" }, { mode: "test", scopes: ["usage:read"] }],
  });
  [test, live, usageOnly] = a.keys.map((k) => k.secret) as [string, string, string];
  accountId = a.accountId;
});

const check = (instructions: string) => ({ type: "check", instructions });
const item = (n = 0) => ({
  state: { ticket: `Parcel ${n} arrived broken, I want my money back.` },
  questions: {
    refund: check("Does the customer ask for a refund?"),
    mood: { type: "pick", instructions: "Mood?", options: { calm: null, angry: null } },
  },
  expected: { refund: true, mood: "angry" },
});
const body = (items: unknown[] = [item(0), item(1)], extra: Record<string, unknown> = {}) => ({
  name: "triage",
  items,
  ...extra,
});

const post = (secret: string, b: unknown, headers: Record<string, string> = {}) =>
  consoleCall("POST", "/v1/evaluations", { bearer: secret, body: b, headers });

describe("POST /v1/evaluations: auth, scope, test keys only", () => {
  it("no key 401, a key without `decide` 403 insufficient_scope, a live key 403 live_key_not_allowed", async () => {
    await expectError(await consoleCall("POST", "/v1/evaluations", { body: body() }), 401, "missing_api_key");
    await expectError(await post(usageOnly, body()), 403, "insufficient_scope");
    const err = await expectError(await post(live, body()), 403, "live_key_not_allowed");
    expect(err.type).toBe("permission");
    // Auth comes before the body: a live key with a broken body still hears about the key.
    await expectError(await post(live, "{"), 403, "live_key_not_allowed");
    await expectError(
      await consoleCall("GET", "/v1/evaluations", { bearer: live }),
      403,
      "live_key_not_allowed",
    );
  });
});

describe("POST /v1/evaluations: validation precedence (body first, then item by item)", () => {
  const long = "1".repeat(16_385);
  it.each<[string, unknown, number, string, string | undefined]>([
    ["not JSON", "{", 400, "invalid_json", undefined],
    [
      "a repeated key keeps its JSON pointer",
      '{"name":"a","items":[{"state":"s","state":"t"}]}',
      400,
      "duplicate_key",
      "/items/0/state",
    ],
    ["unknown top-level field", body(undefined, { extra: 1 }), 422, "unknown_field", "extra"],
    ["missing items", { name: "x" }, 422, "missing_field", "items"],
    ["missing name", { items: [item()] }, 422, "missing_field", "name"],
    ["empty items", body([]), 422, "invalid_value", "items"],
    ["1,001 items", body(Array.from({ length: 1001 }, () => ({}))), 422, "invalid_value", "items"],
    ["blank name", { name: "  ", items: [item()] }, 422, "invalid_value", "name"],
    [
      "unknown model (404 after the top-level schema)",
      body(undefined, { model: "svc-7" }),
      404,
      "model_not_found",
      "model",
    ],
    [
      "top-level schema before the model",
      body(undefined, { model: "svc-7", extra: 1 }),
      422,
      "unknown_field",
      "extra",
    ],
    ["the model before any item", body([{}], { model: "svc-7" }), 404, "model_not_found", "model"],
    [
      "an item may not carry model",
      body([item(), { ...item(), model: "svc-1" }]),
      422,
      "field_not_allowed",
      "items.1.model",
    ],
    ["nor fallback", body([{ ...item(), fallback: "never" }]), 422, "field_not_allowed", "items.0.fallback"],
    ["an item that is not an object", body([item(), 5]), 422, "invalid_type", "items.1"],
    [
      "decide's param under the item",
      body([item(), item(), item(), { ...item(), questions: { q: check(" ") }, expected: { q: true } }]),
      422,
      "invalid_value",
      "items.3.questions.q.instructions",
    ],
    [
      "expected missing",
      body([{ state: "s", questions: { q: check("ok?") } }]),
      422,
      "missing_field",
      "items.0.expected",
    ],
    [
      "expected names a question the item lacks",
      body([{ state: "s", questions: { q: check("ok?") }, expected: { q: true, zz: true } }]),
      422,
      "unknown_field",
      "items.0.expected.zz",
    ],
    [
      "expected lacks a question",
      body([{ state: "s", questions: { q: check("ok?"), r: check("ok?") }, expected: { q: true } }]),
      422,
      "missing_field",
      "items.0.expected.r",
    ],
    [
      "a pick's expected is one of its labels",
      body([{ ...item(), expected: { refund: true, mood: "sad" } }]),
      422,
      "invalid_value",
      "items.0.expected.mood",
    ],
    [
      "a check's expected is a boolean",
      body([{ ...item(), expected: { refund: "yes", mood: "calm" } }]),
      422,
      "invalid_value",
      "items.0.expected.refund",
    ],
    [
      "references (422) under the item",
      body([{ state: { a: 1 }, questions: { q: check("{{b}}") }, expected: { q: false } }]),
      422,
      "state_path_not_found",
      "items.0.questions.q.instructions",
    ],
    [
      "within an item 422 before 413",
      body([{ state: long, questions: { q: check("ok?") }, expected: { q: 1 } }]),
      422,
      "invalid_value",
      "items.0.expected.q",
    ],
    [
      "the first failing item decides: a 413 in item 1 beats a 422 in item 2",
      body([
        item(),
        { state: long, questions: { q: check("ok?") }, expected: { q: true } },
        { ...item(), extra: 1 },
      ]),
      413,
      "state_too_long",
      "items.1.state",
    ],
    [
      "an item's request_too_long without a param names the item",
      body([{ state: "1".repeat(14_000), questions: { a: check("1".repeat(2500)) }, expected: { a: true } }]),
      413,
      "request_too_long",
      "items.0",
    ],
  ])("%s", async (_name, b, status, code, param) => {
    await expectError(await post(test, b), status, code, param);
  });

  it("content type and body size (spec front door)", async () => {
    await expectError(
      await post(test, JSON.stringify(body()), { "content-type": "text/plain" }),
      400,
      "unsupported_media_type",
      "content-type",
    );
    const huge = body([
      { state: "x".repeat(300_000), questions: { q: check("ok?") }, expected: { q: true } },
    ]);
    await expectError(await post(test, huge), 413, "body_too_large");
  });
});

describe("create, get, list, cancel, delete", () => {
  it("201 with the evaluation pinned to an exact version, queued, progress 0 of n", async () => {
    const res = await post(test, body());
    expect(res.status).toBe(201);
    const e = (await res.json()) as Record<string, unknown>;
    expect(e.id).toMatch(EVALUATION_ID_PATTERN);
    expect(e).toMatchObject({
      object: "evaluation",
      name: "triage",
      status: "queued",
      progress: { done: 0, total: 2 },
      metrics: null,
      failure: null,
      resumes_at: null,
    });
    expect(e.model).toMatch(/^svc-1\.\d+\.\d+$/);
    expect(Number(e.expires_at) - Number(e.created)).toBe(30 * 86_400);

    const got = await consoleCall("GET", `/v1/evaluations/${e.id}`, { bearer: test });
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: e.id, model: e.model, progress: { total: 2 } });

    const items = (await (
      await consoleCall("GET", `/v1/evaluations/${e.id}/items?limit=1`, { bearer: test })
    ).json()) as { data: Array<Record<string, unknown>>; has_more: boolean };
    expect(items.has_more).toBe(true);
    expect(items.data[0]).toMatchObject({
      object: "evaluation_item",
      index: 0,
      expected: { refund: true, mood: "angry" },
    });
    expect(Object.keys(items.data[0]!)).toEqual([
      "object",
      "index",
      "state",
      "questions",
      "expected",
      "decision",
    ]);
  });

  it("lists newest first with pagination; another account's evaluation is 404 evaluation_not_found", async () => {
    const other = await seed({ keys: [{ mode: "test" }] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(other.keys[0]!.secret, body([item(i)]));
      ids.push(((await res.json()) as { id: string }).id);
    }
    const page = (await (
      await consoleCall("GET", "/v1/evaluations?limit=2", { bearer: other.keys[0]!.secret })
    ).json()) as { data: Array<{ id: string }>; has_more: boolean };
    expect(page.data.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    const rest = (await (
      await consoleCall("GET", `/v1/evaluations?limit=2&starting_after=${ids[1]}`, {
        bearer: other.keys[0]!.secret,
      })
    ).json()) as { data: Array<{ id: string }>; has_more: boolean };
    expect(rest).toMatchObject({ data: [{ id: ids[0] }], has_more: false });

    await expectError(
      await consoleCall("GET", `/v1/evaluations/${ids[0]}`, { bearer: test }),
      404,
      "evaluation_not_found",
      "id",
    );
    await expectError(
      await consoleCall("GET", "/v1/evaluations/eval_nope", { bearer: test }),
      404,
      "evaluation_not_found",
      "id",
    );
    await expectError(
      await consoleCall("GET", "/v1/evaluations?limit=0", { bearer: test }),
      422,
      "invalid_value",
      "limit",
    );
    await expectError(
      await consoleCall("GET", "/v1/evaluations?page=2", { bearer: test }),
      422,
      "unknown_field",
      "page",
    );
  });

  it("cancel (twice is the same answer), delete, then 404", async () => {
    const e = (await (await post(test, body())).json()) as { id: string };
    const c1 = await consoleCall("POST", `/v1/evaluations/${e.id}/cancel`, { bearer: test });
    expect(c1.status).toBe(200);
    const cancelled = (await c1.json()) as Record<string, unknown>;
    expect(cancelled).toMatchObject({ id: e.id, status: "cancelled" });
    expect(cancelled.finished).toEqual(expect.any(Number));
    const c2 = await consoleCall("POST", `/v1/evaluations/${e.id}/cancel`, { bearer: test });
    expect(await c2.json()).toMatchObject({ status: "cancelled", finished: cancelled.finished });
    const d = await consoleCall("DELETE", `/v1/evaluations/${e.id}`, { bearer: test });
    expect(await d.json()).toEqual({ id: e.id, object: "evaluation", deleted: true });
    await expectError(
      await consoleCall("GET", `/v1/evaluations/${e.id}`, { bearer: test }),
      404,
      "evaluation_not_found",
      "id",
    );
    await expectError(
      await consoleCall("DELETE", `/v1/evaluations/${e.id}`, { bearer: test }),
      404,
      "evaluation_not_found",
      "id",
    );
  });
});

describe("console twins (session; writes need x-svc-csrf)", () => {
  it("create, list, get, items, cancel, delete from the console; the API key of the account sees them too", async () => {
    const s = await signIn();
    await expectError(
      await consoleCall("POST", "/v1/console/evaluations", { cookie: s.cookie, body: body() }),
      403,
      "csrf_failed",
    );
    await expectError(await consoleCall("GET", "/v1/console/evaluations"), 401, "invalid_session");
    await expectError(
      await consoleCall("POST", "/v1/console/evaluations", {
        cookie: s.cookie,
        csrf: s.csrf,
        body: body([{ ...item(), model: "svc-1" }]),
      }),
      422,
      "field_not_allowed",
      "items.0.model",
    );
    const res = await consoleCall("POST", "/v1/console/evaluations", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: body(),
    });
    expect(res.status).toBe(201);
    const e = (await res.json()) as { id: string };
    const list = (await (
      await consoleCall("GET", "/v1/console/evaluations", { cookie: s.cookie })
    ).json()) as {
      data: Array<{ id: string }>;
    };
    expect(list.data.map((d) => d.id)).toEqual([e.id]);
    expect((await consoleCall("GET", `/v1/console/evaluations/${e.id}`, { cookie: s.cookie })).status).toBe(
      200,
    );
    expect(
      (await consoleCall("GET", `/v1/console/evaluations/${e.id}/items`, { cookie: s.cookie })).status,
    ).toBe(200);
    await expectError(
      await consoleCall("POST", `/v1/console/evaluations/${e.id}/cancel`, { cookie: s.cookie }),
      403,
      "csrf_failed",
    );
    const c = await consoleCall("POST", `/v1/console/evaluations/${e.id}/cancel`, {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(await c.json()).toMatchObject({ status: "cancelled" });
    const d = await consoleCall("DELETE", `/v1/console/evaluations/${e.id}`, {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(await d.json()).toMatchObject({ deleted: true });
    // Someone else's session cannot see another account's evaluation.
    const s2 = await signIn();
    await expectError(
      await consoleCall("GET", `/v1/console/evaluations/${e.id}`, { cookie: s2.cookie }),
      404,
      "evaluation_not_found",
      "id",
    );
    expect(accountId).not.toBe(s.accountId);
  });
});
