import { beforeAll, describe, expect, it } from "vitest";
import { bearer, call, expectError, seed } from "../../support/worker-http";

let live = "";
beforeAll(async () => {
  live = (await seed({ keys: [{ mode: "live" }] })).keys[0]!.secret;
});

const decide = (body: unknown) =>
  call("POST", "/v1/decide", {
    headers: { ...bearer(live), "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const check = (instructions: string) => ({ type: "check", instructions });
const valid = () => ({
  state: { order: { id: 7 } },
  questions: { late: check("Is order {{order.id}} late?") },
});

describe("POST /v1/decide steps 3–6 end to end (exact status, code, param)", () => {
  it.each<[string, unknown, number, string, string | undefined]>([
    [
      "Unknown fields are rejected (422 unknown_field)",
      { ...valid(), extra: 1 },
      422,
      "unknown_field",
      "extra",
    ],
    [
      "precedence: unknown_field before invalid_type",
      { ...valid(), state: 5, extra: 1 },
      422,
      "unknown_field",
      "extra",
    ],
    [
      "precedence: invalid_levels before invalid_value",
      { state: "s", model: "x", questions: { r: { type: "rate", instructions: "how?", levels: ["a"] } } },
      422,
      "invalid_levels",
      "questions.r.levels",
    ],
    [
      "A state of another JSON type gives invalid_type",
      { ...valid(), state: 1 },
      422,
      "invalid_type",
      "state",
    ],
    [
      "an unknown name gives 404 model_not_found",
      { ...valid(), model: "svc-7" },
      404,
      "model_not_found",
      "model",
    ],
    [
      "naming a retired exact version gives 404 model_retired",
      { ...valid(), model: "svc-0.9.0" },
      404,
      "model_retired",
      "model",
    ],
    [
      "the schema (422) comes before the model (404)",
      { ...valid(), model: "svc-7", fallback: "x" },
      422,
      "invalid_value",
      "fallback",
    ],
    [
      "A reference to a field the state lacks gives state_path_not_found",
      { ...valid(), questions: { q: check("{{order.nope}}") } },
      422,
      "state_path_not_found",
      "questions.q.instructions",
    ],
    [
      "a reference while the state is a string gives state_not_json",
      { ...valid(), state: "text" },
      422,
      "state_not_json",
      "questions.late.instructions",
    ],
    [
      "the model (404) comes before references (422)",
      { ...valid(), model: "svc-7", state: "text" },
      404,
      "model_not_found",
      "model",
    ],
    [
      "Two pick labels equal after NFC and lower-casing give duplicate_label",
      {
        state: "s",
        questions: { p: { type: "pick", instructions: "which?", options: { Yes: null, YES: null } } },
      },
      422,
      "duplicate_label",
      "questions.p.options.YES",
    ],
    [
      "Rendered state over 16,384 tokens gives 413 state_too_long",
      { state: "1".repeat(16_385), questions: { q: check("ok?") } },
      413,
      "state_too_long",
      "state",
    ],
    [
      "All questions over 4,096 give 413 request_too_long with param questions",
      { state: "s", questions: { a: check("1".repeat(2100)), b: check("1".repeat(2100)) } },
      413,
      "request_too_long",
      "questions",
    ],
  ])("%s", async (_name, body, status, code, param) => {
    await expectError(await decide(body), status, code, param);
  });

  it("labels repeated character for character are duplicate_key (400), not duplicate_label", async () => {
    const body =
      '{"state":"s","questions":{"p":{"type":"pick","instructions":"w?","options":{"a":null,"a":null}}}}';
    await expectError(await decide(body), 400, "duplicate_key", "/questions/p/options/a");
  });

  it("a valid request passes steps 3–6 (never a 4xx of theirs, never a 500)", async () => {
    const res = await decide(valid());
    const text = await res.text();
    expect([404, 413, 422, 500], text).not.toContain(res.status);
    if (res.status === 503) expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
