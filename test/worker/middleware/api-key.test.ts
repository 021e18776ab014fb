import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { keyChecksum } from "../../../schema/api-key";
import { sqlQuery } from "../../support/seed";
import { BASE, bearer, call, expectError, seed, VALID_DECIDE } from "../../support/worker-http";

const HOUR = 3_600_000;
let keys: Record<string, string> = {};
let accountId = "";
let liveKeyId = "";
let livePrefix = "";

beforeAll(async () => {
  const a = await seed({
    keys: [
      { mode: "live" },
      { mode: "test", scopes: ["usage:read"] },
      { mode: "live", revokedAt: new Date(Date.now() - HOUR) },
      { mode: "live", expiresAt: new Date(Date.now() - HOUR) },
      { mode: "live", expiresAt: new Date(Date.now() + 24 * HOUR), rpmLimit: 10, tpmLimit: 500_000 },
      { mode: "test" },
      { mode: "test", rpmLimit: 300, tpmLimit: 300_000 },
      { mode: "test", rpmLimit: 5, tpmLimit: 1_000 },
    ],
    rpmLimit: 20,
    tpmLimit: 100_000,
  });
  const suspended = await seed({ status: "suspended", keys: [{ mode: "live" }] });
  const [live, narrow, revoked, expired, limited, test, testHigh, testLow] = a.keys;
  accountId = a.accountId;
  liveKeyId = live!.id;
  livePrefix = live!.prefix;
  keys = {
    live: live!.secret,
    narrow: narrow!.secret,
    revoked: revoked!.secret,
    expired: expired!.secret,
    limited: limited!.secret,
    test: test!.secret,
    testHigh: testHigh!.secret,
    testLow: testLow!.secret,
    suspended: suspended.keys[0]!.secret,
  };
});

/** A well-formed key (valid checksum) that no account has. */
const UNKNOWN_RANDOM = "Unknown0000000000000000000000000000".slice(0, 34);
const UNKNOWN_KEY_VALID = `svc_live_${UNKNOWN_RANDOM}${keyChecksum(`svc_live_${UNKNOWN_RANDOM}`)}`;

describe("Authentication: `authorization: Bearer <API_KEY>` on every public route except the plan list", () => {
  it.each([
    ["no authorization header", undefined, 401, "missing_api_key"],
    ["not Bearer", "Basic dXNlcjpwYXNz", 401, "invalid_api_key"],
    ["Bearer without key", "Bearer ", 401, "invalid_api_key"],
    ["bad shape", "Bearer sk_live_abc", 401, "invalid_api_key"],
    [
      "bad checksum (mistyped)",
      "Bearer svc_live_0000000000000000000000000000000000AAAAAA",
      401,
      "invalid_api_key",
    ],
  ])("GET /v1/key with %s → %i %s", async (_n, auth, status, code) => {
    const headers: Record<string, string> = auth === undefined ? {} : { authorization: auth };
    const res = await call("GET", "/v1/key", { headers });
    await expectError(res, status, code);
    expect(res.headers.get("ratelimit")).toBeNull();
  });

  it.each([
    ["unknown key", () => UNKNOWN_KEY_VALID, 401, "invalid_api_key"],
    ["revoked key", () => keys.revoked!, 401, "revoked_api_key"],
    ["expired key", () => keys.expired!, 401, "expired_api_key"],
    ["suspended account", () => keys.suspended!, 403, "account_suspended"],
  ])(
    "Keys not existing / revoked / expired give 401; suspended gives 403 — %s",
    async (_n, key, status, code) => {
      for (const [method, path] of [
        ["GET", "/v1/key"],
        ["GET", "/v1/models"],
        ["POST", "/v1/decide"],
      ] as const) {
        await expectError(await call(method, path, { headers: bearer(key()) }), status, code);
      }
    },
  );

  it("a key lacking the route's scope gets 403 insufficient_scope (auth 401 before scope 403)", async () => {
    await expectError(
      await call("POST", "/v1/decide", {
        headers: { ...bearer(keys.narrow!), "content-type": "application/json" },
      }),
      403,
      "insufficient_scope",
    );
    await expectError(
      await call("POST", "/v1/decide", { headers: bearer(keys.revoked!) }),
      401,
      "revoked_api_key",
    );
  });

  it("GET /v1/models and GET /v1/key work with any valid key, any scopes", async () => {
    for (const path of ["/v1/key", "/v1/models"]) {
      const res = await call("GET", path, { headers: bearer(keys.narrow!) });
      expect(res.status).toBe(200);
    }
  });
});

describe("GET /v1/key returns the Key object of the calling key (never the secret)", () => {
  it("live key", async () => {
    const res = await call("GET", "/v1/key", { headers: bearer(keys.live!) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(keys.live!);
    const body = JSON.parse(text);
    expect(body).toEqual({
      object: "key",
      id: liveKeyId,
      prefix: livePrefix,
      mode: "live",
      scopes: ["decide", "usage:read", "balance:read"],
      account_id: accountId,
      created: expect.any(Number),
    });
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(600);
    expect(keys.live!.startsWith(body.prefix)).toBe(true);
  });
});

const POLICY = /^"rpm";q=(\d+);w=60, "tpm";q=(\d+);w=60$/;
const CURRENT = /^"rpm";r=(\d+);t=(\d+), "tpm";r=(\d+);t=(\d+)$/;

describe("ratelimit-policy / ratelimit on every authenticated API response", () => {
  it.each([
    ["live key, account caps 20 rpm / 100k tpm", "live", 20, 100_000],
    ["key's own limits capped by the account (10 rpm; 500k tpm → 100k)", "limited", 10, 100_000],
    ["test key: the spec's 30 rpm / 40,000 tpm whatever the account's live caps", "test", 30, 40_000],
    ["test key whose own limits are higher than the test limits → the test limits", "testHigh", 30, 40_000],
    ["test key whose own limits are lower → its own", "testLow", 5, 1_000],
  ])("%s", async (_n, which, rpm, tpm) => {
    for (const res of [
      await call("GET", "/v1/key", { headers: bearer(keys[which]!) }),
      await call("POST", "/v1/decide", {
        headers: { ...bearer(keys[which]!), "content-type": "text/plain" },
        body: "x",
      }),
    ]) {
      const policy = POLICY.exec(res.headers.get("ratelimit-policy") ?? "");
      const current = CURRENT.exec(res.headers.get("ratelimit") ?? "");
      expect(policy, res.headers.get("ratelimit-policy") ?? "none").not.toBeNull();
      expect(current).not.toBeNull();
      expect(Number(policy![1])).toBe(rpm);
      expect(Number(policy![2])).toBe(tpm);
      expect(Number(current![1])).toBeLessThanOrEqual(rpm);
      expect(Number(current![2])).toBeLessThanOrEqual(60);
      expect(Number(current![3])).toBeLessThanOrEqual(tpm);
    }
  });

  it("'ratelimit' tells the truth on routes that take nothing: key, models, balance and a refused decide read the real counts", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const k = a.keys[0]!.secret;
    const valid = { headers: { ...bearer(k), "content-type": "application/json" }, body: VALID_DECIDE };
    for (let i = 0; i < 3; i++) expect((await call("POST", "/v1/decide", valid)).status).toBe(503); // admitted, no GPU here
    const remaining = async (res: Response) => Number(CURRENT.exec(res.headers.get("ratelimit") ?? "")?.[1]);
    expect(await remaining(await call("GET", "/v1/key", { headers: bearer(k) }))).toBe(27);
    expect(await remaining(await call("GET", "/v1/models", { headers: bearer(k) }))).toBe(27);
    const refused = await call("POST", "/v1/decide", { ...valid, body: "{}" });
    expect(refused.status).toBe(422);
    expect(await remaining(refused)).toBe(27);
  });

  it("an unauthenticated 401 carries no rate-limit headers", async () => {
    const res = await SELF.fetch(`${BASE}/v1/key`);
    expect(res.status).toBe(401);
    expect(res.headers.get("ratelimit-policy")).toBeNull();
  });

  it("a valid decide body passes the front door (next steps decide the answer, never a 500)", async () => {
    const res = await call("POST", "/v1/decide", {
      headers: { ...bearer(keys.live!), "content-type": "application/json" },
      body: VALID_DECIDE,
    });
    expect(res.status).not.toBe(500);
    expect(res.status).not.toBe(400);
    expect(res.headers.get("ratelimit")).toMatch(CURRENT);
  });
});

describe("Revocation stops a key on every replica within about a second", () => {
  it("revoked in Postgres → 401 revoked_api_key once the 1 s cache has lapsed", async () => {
    const a = await seed({ keys: [{ mode: "live" }] });
    const k = a.keys[0]!;
    expect((await call("GET", "/v1/key", { headers: bearer(k.secret) })).status).toBe(200);
    await sqlQuery(env)("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [k.id]);
    await new Promise((r) => setTimeout(r, 1050));
    await expectError(await call("GET", "/v1/key", { headers: bearer(k.secret) }), 401, "revoked_api_key");
  });
});
