import { describe, expect, it, vi } from "vitest";
import { generateApiKey } from "../../../schema/api-key";
import { authenticate } from "../../../workers/middleware/api-key";
import { CachedKeyStore, type KeyRecord, MemoryKeyStore } from "../../../workers/stores/keys";

function record(over: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: "key_01JD0000000000000000000000",
    accountId: "acc_01JD0000000000000000000000",
    mode: "live",
    prefix: "svc_live_AAAA",
    scopes: ["decide"],
    name: null,
    created: 1_700_000_000,
    expiresAt: null,
    revokedAt: null,
    rpmLimit: null,
    tpmLimit: null,
    account: { status: "active", rpmLimit: null, tpmLimit: null },
    ...over,
  };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return "ok";
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
};

describe("not `Bearer <key>` or bad shape/checksum → 401 invalid_api_key WITHOUT touching storage", () => {
  it.each([
    ["missing", undefined, "missing_api_key"],
    ["blank", "   ", "missing_api_key"],
    ["Basic", "Basic abc", "invalid_api_key"],
    ["Bearer only", "Bearer", "invalid_api_key"],
    ["two tokens", "Bearer a b", "invalid_api_key"],
    ["bad shape", "Bearer svc_live_short", "invalid_api_key"],
    ["bad checksum", "Bearer svc_live_0000000000000000000000000000000000ZZZZZZ", "invalid_api_key"],
  ])("%s → %s, store never called", async (_n, header, code) => {
    const find = vi.fn(async () => record());
    expect(await codeOf(authenticate(header, find))).toBe(code);
    expect(find).not.toHaveBeenCalled();
  });
});

describe("lookup by SHA-256: unknown → invalid_api_key, revoked_api_key, expired_api_key", () => {
  it("looks up the SHA-256 hex of the whole secret, case-insensitive scheme", async () => {
    const { secret, hash } = await generateApiKey("live");
    const find = vi.fn(async () => record());
    await authenticate(`bearer ${secret}`, find);
    expect(find).toHaveBeenCalledWith(hash);
  });

  it.each([
    ["unknown", null, "invalid_api_key"],
    ["revoked", record({ revokedAt: 1000 }), "revoked_api_key"],
    ["expired", record({ expiresAt: 1000 }), "expired_api_key"],
    ["expiry in the future", record({ expiresAt: 10_000 }), "ok"],
    ["revoked and expired: revoked wins", record({ revokedAt: 1000, expiresAt: 1000 }), "revoked_api_key"],
  ])("%s", async (_n, rec, code) => {
    const { secret } = await generateApiKey("test");
    expect(await codeOf(authenticate(`Bearer ${secret}`, async () => rec, 5000))).toBe(code);
  });

  it("an unreachable store → 503 maintenance with retry-after (never 500)", async () => {
    const { secret } = await generateApiKey("live");
    const err = await authenticate(`Bearer ${secret}`, async () => {
      throw new Error("connect ECONNREFUSED");
    }).catch((e) => e);
    expect(err.code).toBe("maintenance");
    expect(err.options.retryAfter).toBeGreaterThan(0);
  });
});

describe("in-isolate key cache of at most 1 s: revocation takes effect within ~1 s", () => {
  it("serves a found key from cache for < 1 s, then reads the store again", async () => {
    let now = 0;
    const mem = new MemoryKeyStore();
    mem.records.set("h", record());
    const spy = vi.spyOn(mem, "findByHash");
    const cached = new CachedKeyStore(mem, 1000, () => now);
    expect((await cached.findByHash("h"))?.revokedAt).toBeNull();
    now = 999;
    mem.records.set("h", record({ revokedAt: 1 }));
    expect((await cached.findByHash("h"))?.revokedAt).toBeNull();
    expect(spy).toHaveBeenCalledTimes(1);
    now = 1000;
    expect((await cached.findByHash("h"))?.revokedAt).toBe(1);
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it("does not cache unknown keys (a key created a moment ago works at once)", async () => {
    const mem = new MemoryKeyStore();
    const cached = new CachedKeyStore(mem, 1000, () => 0);
    expect(await cached.findByHash("h")).toBeNull();
    mem.records.set("h", record());
    expect(await cached.findByHash("h")).not.toBeNull();
  });
});
