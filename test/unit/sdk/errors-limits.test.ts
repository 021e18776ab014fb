import { describe, expect, it } from "vitest";
import { isSvcError, limitsFor, type Model, SvcError } from "../../../sdk/src/index";
import { modelList } from "../../../workers/routes/models/list";
import { scriptedClient } from "../../support/sdk-fake-fetch";

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("resolved"),
    (e: unknown) => e as SvcError,
  );

describe("errors are typed values: type, code, param, request_id", () => {
  it("an envelope's fields, and retry-after", async () => {
    const { client } = scriptedClient([
      { error: "invalid_value", type: "validation", status: 422, param: "questions.q.instructions" },
    ]);
    const e = await failure(
      client.decide({ state: "s", questions: { q: { type: "check", instructions: " " } } }),
    );
    expect(isSvcError(e, "validation")).toBe(true);
    expect(e).toBeInstanceOf(SvcError);
    expect(e.fields()).toEqual({
      type: "validation",
      code: "invalid_value",
      message: "scripted invalid_value",
      status: 422,
      param: "questions.q.instructions",
      request_id: "req_00000000000000000000000000",
      attempts: 1,
    });
    expect(e.known).toBe(true);
  });

  it("402 carries the balance and the charge", async () => {
    const error = {
      type: "insufficient_balance",
      code: "insufficient_balance",
      message: "m",
      request_id: "req_1",
      balance_micro_cents: 10,
      required_micro_cents: 95,
    };
    const { client } = scriptedClient([{ json: { error }, status: 402 }]);
    const e = await failure(client.getKey());
    expect([e.balance_micro_cents, e.required_micro_cents, e.request_id]).toEqual([10, 95, "req_1"]);
  });

  it("an unknown code keeps its type (act on type); an answer that is not the API's gets one from its status", async () => {
    const { client } = scriptedClient([{ error: "new_thing", type: "permission", status: 403 }]);
    const e = await failure(client.getKey());
    expect([e.type, e.code, e.known]).toEqual(["permission", "new_thing", false]);
    const proxy = scriptedClient([{ text: "<html>bad gateway</html>", status: 502 }], { maxRetries: 0 });
    const p = await failure(proxy.client.getKey());
    expect([p.type, p.code, p.status]).toEqual(["unavailable", "http_502", 502]);
    const gone = scriptedClient([{ text: "nope", status: 404 }]);
    expect((await failure(gone.client.getKey())).type).toBe("not_found");
  });

  it("a 200 that is not JSON is an invalid_response error", async () => {
    const { client } = scriptedClient([{ text: "not json", status: 200 }]);
    expect((await failure(client.getKey())).type).toBe("invalid_response");
  });
});

describe("limits come from GET /v1/models", () => {
  const models = modelList().data as Model[];

  it("an alias gets the strictest of the versions that may answer it; a retired or unknown name none", () => {
    expect(limitsFor(models, "svc-1")).toMatchObject({ max_questions: 32, exact_option_probabilities: 20 });
    expect(limitsFor(models, "svc-1.0.0")).toMatchObject({ exact_option_probabilities: 255 });
    expect(limitsFor(models, "svc-0.9.0")).toBeUndefined();
    expect(limitsFor(models, "svc-7")).toBeUndefined();
  });

  it("checkLimits: a request over the listed counts fails before it is sent; the list is read once", async () => {
    const tight = models.map((m) => ({ ...m, max_questions: 2, max_levels: 3 }));
    const { client, requests } = scriptedClient([{ json: { object: "list", data: tight } }], {
      checkLimits: true,
    });
    const three = {
      a: { type: "check", instructions: "a" },
      b: { type: "check", instructions: "b" },
    } as const;
    const e = await failure(
      client.decide({
        state: "s",
        questions: { ...three, c: { type: "rate", instructions: "c", levels: ["1", "2", "3", "4"] } },
      }),
    );
    expect([e.code, e.param]).toEqual(["too_many_questions", "questions"]);
    const e2 = await failure(
      client.decide({
        state: "s",
        questions: { c: { type: "rate", instructions: "c", levels: ["1", "2", "3", "4"] } },
      }),
    );
    expect([e2.code, e2.param]).toEqual(["invalid_levels", "questions.c.levels"]);
    expect(requests.map((r) => r.url)).toEqual(["http://api.test/v1/models"]);
    expect(await client.limits("svc-1")).toMatchObject({ max_questions: 2 });
  });
});

describe("requests", () => {
  it("headers: bearer key (not on public routes), JSON content type, x-client-request-id; query strings", async () => {
    const { client, requests } = scriptedClient([{ json: {} }]);
    await client.decide({ state: "s", questions: {} }, { clientRequestId: "mine-1" });
    await client.getOpenApiDocument();
    await client.getUsage({ start: "2026-11-01", granularity: "day" });
    const [d, o, u] = requests;
    expect(d?.headers).toMatchObject({
      authorization: "Bearer svc_test_key",
      "content-type": "application/json",
      "x-client-request-id": "mine-1",
    });
    expect([d?.method, d?.url, JSON.parse(d?.body ?? "")]).toEqual([
      "POST",
      "http://api.test/v1/decide",
      { state: "s", questions: {} },
    ]);
    expect(o?.headers.authorization).toBeUndefined();
    expect(u?.url).toBe("http://api.test/v1/usage?start=2026-11-01&granularity=day");
  });

  it("decideWithResponse: the replay flag and request id of the answer", async () => {
    const { client } = scriptedClient([
      { json: { id: "req_x" }, headers: { "idempotent-replayed": "true" } },
    ]);
    const r = await client.decideWithResponse({ state: "s", questions: {} }, { idempotencyKey: "k1" });
    expect([r.meta.replayed, r.meta.requestId, r.meta.idempotencyKey, r.meta.attempts]).toEqual([
      true,
      "req_0",
      "k1",
      1,
    ]);
  });
});
