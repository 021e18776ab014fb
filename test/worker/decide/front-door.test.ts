import { beforeAll, describe, expect, it } from "vitest";
import { bearer, call, expectError, seed, VALID_DECIDE } from "../../support/worker-http";

let live = "";
beforeAll(async () => {
  live = (await seed({ keys: [{ mode: "live" }] })).keys[0]!.secret;
});

const KIB = 1024;
const JSON_CT = { "content-type": "application/json" };

function decide(body: BodyInit | null, headers: Record<string, string> = JSON_CT): Promise<Response> {
  return call("POST", "/v1/decide", { headers: { ...bearer(live), ...headers }, body });
}

/** A JSON body of exactly `n` bytes (a string state padded with spaces). */
function jsonOfSize(n: number): string {
  const head = '{"state":"x","questions":{}}';
  return head + " ".repeat(n - head.length);
}

/** A body streamed in 16 KiB chunks, so no content-length is sent (chunked). */
function chunked(totalBytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(ctrl) {
      if (sent >= totalBytes) return ctrl.close();
      const n = Math.min(16 * KIB, totalBytes - sent);
      ctrl.enqueue(new Uint8Array(n).fill(0x20));
      sent += n;
    },
  });
}

/** Passed the front door: whatever the later steps answer, it is not a 400/413 from here. */
async function expectPastFrontDoor(res: Response): Promise<void> {
  const text = await res.text();
  expect([400, 413], text).not.toContain(res.status);
  expect(res.status, text).not.toBe(500);
}

describe("Body size: over 256 KiB → 413 body_too_large (before content type and JSON)", () => {
  it("256 KiB exactly is accepted", async () => {
    await expectPastFrontDoor(await decide(jsonOfSize(256 * KIB)));
  });
  it("256 KiB + 1 byte with content-length → 413", async () => {
    await expectError(await decide(jsonOfSize(256 * KIB + 1)), 413, "body_too_large");
  });
  it("over the limit with the wrong content type is still 413 (size is checked first)", async () => {
    await expectError(
      await decide("x".repeat(300 * KIB), { "content-type": "text/plain" }),
      413,
      "body_too_large",
    );
  });
  it("a chunked body without content-length is cut off at the limit", async () => {
    const res = await decide(chunked(5 * 1024 * KIB));
    await expectError(res, 413, "body_too_large");
  });
  it("a small chunked body passes the size check", async () => {
    await expectError(await decide(chunked(100)), 400, "invalid_json");
  });
});

describe("Content type: a request with a body lacks `application/json` → 400 unsupported_media_type", () => {
  it.each([
    ["missing", undefined],
    ["text/plain", "text/plain"],
    ["form", "application/x-www-form-urlencoded"],
    ["json-ish suffix", "application/merge-patch+json"],
    ["json prefix", "application/jsonx"],
    ["non-UTF-8 charset", "application/json; charset=iso-8859-1"],
  ])("%s", async (_n, ct) => {
    const res = await decide(VALID_DECIDE, ct === undefined ? {} : { "content-type": ct });
    await expectError(res, 400, "unsupported_media_type", "content-type");
  });

  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON;Charset=UTF-8",
    'application/json; charset="utf-8"',
  ])("accepts %s", async (ct) => {
    await expectPastFrontDoor(await decide(VALID_DECIDE, { "content-type": ct }));
  });
});

describe("invalid_json: body empty, not UTF-8 or not JSON, including a lone surrogate escape", () => {
  it.each([
    ["empty body", ""],
    ["empty body, no content type", null],
    ["whitespace", "  \n "],
    ["truncated", '{"state":'],
    ["trailing comma", '{"state":"x",}'],
    ["single quotes", "{'state':'x'}"],
    ["lone high surrogate escape", '{"state":"\\ud83d"}'],
    ["lone low surrogate escape", '{"state":"\\ude00x"}'],
    ["two documents", "{} {}"],
  ])("%s", async (_n, body) => {
    const headers = body === null ? {} : JSON_CT;
    await expectError(await decide(body, headers), 400, "invalid_json");
  });

  it.each([
    ["invalid byte 0xFF", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]],
    ["overlong encoding", [0x22, 0xc0, 0xaf, 0x22]],
    ["encoded surrogate (CESU)", [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ["truncated multibyte", [0x22, 0xe2, 0x82, 0x22]],
  ])("not UTF-8: %s", async (_n, bytes) => {
    await expectError(await decide(new Uint8Array(bytes)), 400, "invalid_json");
  });

  it("a complete surrogate pair escape is fine", async () => {
    const body = VALID_DECIDE.replace("My card", "My \\ud83d\\ude00 card");
    await expectPastFrontDoor(await decide(body));
  });
});

describe("duplicate_key: `param` is the JSON pointer of the repeated member", () => {
  it.each([
    ['{"state":"x","state":"y","questions":{}}', "/state"],
    [
      '{"state":"x","questions":{"q":{"type":"pick","instructions":"i","options":{"Yes":null,"No":null,"Yes":null}}}}',
      "/questions/q/options/Yes",
    ],
    ['{"state":{"a/b":{"c~d":1,"c~d":2}},"questions":{}}', "/state/a~1b/c~0d"],
    ['{"state":[{"k":1},{"k":1,"k":2}],"questions":{}}', "/state/1/k"],
  ])("%s → %s", async (body, pointer) => {
    await expectError(await decide(body), 400, "duplicate_key", pointer);
  });

  it("malformed JSON after a duplicate is invalid_json (parsing before duplicate keys)", async () => {
    await expectError(await decide('{"a":1,"a":2'), 400, "invalid_json");
  });
});

describe("idempotency-key: 1 to 255 printable ASCII (0x21–0x7E) → else 400 invalid_header", () => {
  it.each([
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["space", "my key"],
    ["non-ASCII", "cl\u00e9"],
  ])("%s", async (_n, key) => {
    await expectError(
      await decide(VALID_DECIDE, { ...JSON_CT, "idempotency-key": key }),
      400,
      "invalid_header",
      "idempotency-key",
    );
  });

  it("is checked before the body (an oversized body with a bad key is invalid_header)", async () => {
    const res = await decide(jsonOfSize(300 * KIB), { ...JSON_CT, "idempotency-key": "" });
    await expectError(res, 400, "invalid_header", "idempotency-key");
  });

  it("identical levels are 422 invalid_levels by the schema precedence, before the model lookup (404)", async () => {
    const body = JSON.stringify({
      model: "svc-9.9.9",
      state: "s",
      questions: { r: { type: "rate", instructions: "How?", levels: ["low", "low"] } },
    });
    await expectError(await decide(body), 422, "invalid_levels", "questions.r.levels.1");
  });

  it("255 printable characters pass", async () => {
    await expectPastFrontDoor(await decide(VALID_DECIDE, { ...JSON_CT, "idempotency-key": "~".repeat(255) }));
  });
});

describe("Order of checks: auth (401) and scope (403) before size, type and JSON", () => {
  it("no key + bad body → 401", async () => {
    const res = await call("POST", "/v1/decide", {
      headers: { "content-type": "text/plain" },
      body: "x".repeat(300 * KIB),
    });
    await expectError(res, 401, "missing_api_key");
  });
  it("after JSON: the schema (422) comes next", async () => {
    await expectError(await decide('{"state":"x","questions":{},"extra":1}'), 422, "unknown_field", "extra");
  });
});
