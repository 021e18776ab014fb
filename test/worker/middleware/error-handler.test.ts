import { env } from "cloudflare:test";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { generateApiKey } from "../../../schema/api-key";
import { createApp } from "../../../workers/app";
import type { AppEnv } from "../../../workers/context/app-env";
import { ApiError } from "../../../workers/errors";
import { errorHandler } from "../../../workers/middleware/error-handler";
import { requestId } from "../../../workers/middleware/request-id";
import { routeNotFound } from "../../../workers/middleware/routing";
import { buildServices } from "../../../workers/services";
import type { KeyStore } from "../../../workers/stores/keys";
import { expectError } from "../../support/worker-http";

/** A throw-away app with the front door's error handling, to provoke faults the real routes never have. */
function faultyApp() {
  const a = new Hono<AppEnv>();
  a.use("*", requestId());
  a.onError(errorHandler());
  a.get("/boom", () => {
    throw new Error("db at postgres://admin:hunter2@db.internal failed for Bearer svc_live_abc");
  });
  a.get("/busy", () => {
    throw new ApiError("no_capacity", { retryAfter: 2.2 });
  });
  a.get("/boom-string", () => {
    throw "not an Error";
  });
  return a;
}

/** The real app whose key store is `keys` (injected through the services seam). */
const appWithKeys = (keys: KeyStore) => createApp((e) => ({ ...buildServices(e), keys }));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Unknown exceptions → 500 internal_error with no internal detail; one log line without secrets", () => {
  it.each(["/boom", "/boom-string"])("%s", async (path) => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await faultyApp().request(path, { headers: { "x-client-request-id": "abc" } });
    const err = await expectError(res, 500, "internal_error");
    expect(err.type).toBe("internal");
    expect(err.message).toBe("Internal server error.");
    expect(res.headers.get("x-client-request-id")).toBe("abc");
    expect(log).toHaveBeenCalledTimes(1);
    const line = String(log.mock.calls[0]?.[0]);
    expect(line).not.toContain("\n");
    expect(line).toContain(String(err.request_id));
    expect(line).not.toContain("hunter2");
    expect(line).not.toContain("svc_live_abc");
  });
});

describe("retry-after from ApiError.options.retryAfter (whole seconds)", () => {
  it("503 no_capacity carries retry-after", async () => {
    const res = await faultyApp().request("/busy");
    await expectError(res, 503, "no_capacity");
    expect(res.headers.get("retry-after")).toBe("3");
  });
});

describe("Key store unreachable → 503 maintenance with retry-after, never a 500", () => {
  it("through the real app", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const app = appWithKeys({
      findByHash: async () => {
        throw new Error("fetch failed");
      },
    });
    const { secret } = await generateApiKey("live");
    const res = await app.request("/v1/key", { headers: { authorization: `Bearer ${secret}` } }, env);
    await expectError(res, 503, "maintenance");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("a malformed key never reaches the store", async () => {
    const find = vi.fn();
    const res = await appWithKeys({ findByHash: find }).request(
      "/v1/key",
      { headers: { authorization: "Bearer svc_live_nope" } },
      env,
    );
    await expectError(res, 401, "invalid_api_key");
    expect(find).not.toHaveBeenCalled();
  });
});

describe("405 `allow` derives from the registered routes (no hand-kept list)", () => {
  it("a route added later (with params, in a sub-app) shows up in allow", async () => {
    const a = new Hono<AppEnv>();
    a.use("*", requestId());
    a.onError(errorHandler());
    a.notFound(routeNotFound(a));
    const sub = new Hono<AppEnv>()
      .get("/v1/things/:id", (c) => c.text("get"))
      .delete("/v1/things/:id", (c) => c.text("del"));
    a.route("/", sub);
    a.post("/v1/things", (c) => c.text("post"));
    const put = await a.request("/v1/things/42", { method: "PUT" });
    await expectError(put, 405, "method_not_allowed");
    expect(put.headers.get("allow")).toBe("GET, DELETE, HEAD");
    const get = await a.request("/v1/things", { method: "GET" });
    expect(get.headers.get("allow")).toBe("POST");
    await expectError(await a.request("/v1/others"), 404, "route_not_found");
    expect((await a.request("/v1/things/7", { method: "DELETE" })).status).toBe(200);
  });
});
