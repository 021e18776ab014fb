import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, bearer, call, expectError, seed } from "../../support/worker-http";

let live = "";
beforeAll(async () => {
  live = (await seed({ keys: [{ mode: "live" }] })).keys[0]!.secret;
});

const ULID_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

describe("Routing: unknown route → 404 route_not_found; known path + wrong method → 405 with `allow`", () => {
  it.each([
    ["GET", "/v1/nope"],
    ["GET", "/"],
    ["POST", "/v2/decide"],
    ["GET", "/v1/key/"],
    ["GET", "/v1/decide/extra"],
  ])("%s %s → 404 (no key needed)", async (method, path) => {
    await expectError(await call(method, path), 404, "route_not_found");
  });

  it.each([
    ["GET", "/v1/decide", "POST"],
    ["PUT", "/v1/decide", "POST"],
    ["DELETE", "/v1/decide", "POST"],
    ["POST", "/v1/key", "GET, HEAD"],
    ["PATCH", "/v1/models", "GET, HEAD"],
  ])("%s %s → 405, allow: %s (before authentication)", async (method, path, allow) => {
    const res = await call(method, path);
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe(allow);
  });

  it("405 with a key is still 405 (routing before auth)", async () => {
    const res = await call("GET", "/v1/decide", { headers: bearer(live) });
    await expectError(res, 405, "method_not_allowed");
  });
});

describe("x-request-id: always, `req_` + 26-char ULID, equals body id / error.request_id, sorts by time", () => {
  it("on success, on errors and on 404, ids increase", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      for (const res of [
        await call("GET", "/v1/key", { headers: bearer(live) }),
        await call("GET", "/v1/key"),
        await call("GET", "/nowhere"),
        await SELF.fetch(`${BASE}/livez`),
      ]) {
        const id = res.headers.get("x-request-id") ?? "";
        expect(id).toMatch(ULID_ID);
        ids.push(id);
        await res.arrayBuffer();
      }
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("x-client-request-id: 1 to 128 printable ASCII, no spaces; echoed on every response when valid", () => {
  it.each([
    ["empty", ""],
    ["129 characters", "a".repeat(129)],
    ["inner space", "a b"],
    ["non-ASCII", "caf\u00e9"],
    ["DEL", "a\u007fb"],
  ])("%s → 400 invalid_header, param x-client-request-id, not echoed", async (_n, value) => {
    const res = await call("GET", "/v1/key", { headers: { ...bearer(live), "x-client-request-id": value } });
    await expectError(res, 400, "invalid_header", "x-client-request-id");
    expect(res.headers.get("x-client-request-id")).toBeNull();
  });

  it.each([
    ["GET", "/v1/key", true, 200],
    ["GET", "/v1/key", false, 401],
    ["GET", "/v1/unknown", false, 404],
    ["GET", "/v1/decide", false, 405],
    ["POST", "/v1/decide", true, 400],
  ])("%s %s (key: %s) → %i echoes the valid id", async (method, path, withKey, status) => {
    const id = "client-~!#$%&'*+-.^_`|:;<=>?@[]{}()/\\\"," + "x".repeat(80);
    expect(id.length).toBeLessThanOrEqual(128);
    const res = await call(method, path, {
      headers: { ...(withKey ? bearer(live) : {}), "x-client-request-id": id },
    });
    expect(res.status).toBe(status);
    expect(res.headers.get("x-client-request-id")).toBe(id);
    expect(res.headers.get("x-request-id")).toMatch(ULID_ID);
  });

  it("'Malformed gives 400 invalid_header' only after authentication (401) and scope (403), before the body size (413)", async () => {
    const bad = { "x-client-request-id": "a b" };
    await expectError(await call("GET", "/v1/key", { headers: bad }), 401, "missing_api_key");
    const noDecide = (await seed({ keys: [{ mode: "live", scopes: ["usage:read"] }] })).keys[0]!.secret;
    await expectError(
      await call("POST", "/v1/decide", { headers: { ...bearer(noDecide), ...bad }, body: "{}" }),
      403,
      "insufficient_scope",
    );
    const huge = "x".repeat(300 * 1024);
    const res = await call("POST", "/v1/decide", {
      headers: { ...bearer(live), ...bad, "content-type": "application/json" },
      body: huge,
    });
    await expectError(res, 400, "invalid_header", "x-client-request-id");
    await expectError(await call("GET", "/v1/nowhere", { headers: bad }), 404, "route_not_found");
  });

  it("128 characters is accepted", async () => {
    const res = await call("GET", "/v1/key", {
      headers: { ...bearer(live), "x-client-request-id": "z".repeat(128) },
    });
    expect(res.status).toBe(200);
  });
});
