import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GpuAdvert, signAdvert, verifyAdvert } from "../../../schema/gpu-registry";
import { READY_REQUEST_ID } from "../../../schema/signing";
import { GpuPool } from "../../../workers/clients/gpu-pool";
import { GpuRegistry, poolSource } from "../../../workers/clients/gpu-registry";
import { endSigned } from "../../support/signed-answer";

const SECRET = "registry-secret-registry";
const advert = (url: string, over: Partial<GpuAdvert> = {}): GpuAdvert => ({
  v: 1,
  url,
  numerics_class: "cpu-a",
  models: ["svc-1.4.0"],
  in_flight: 0,
  queue_depth: 0,
  sequences: 2,
  queue_max: 16,
  announced_at: 1_000,
  expires_at: 16_000,
  ...over,
});

describe("signed adverts", () => {
  it("verify what was signed with the pool secret, and nothing tampered, moved or signed with another", async () => {
    const a = advert("https://w1:8788");
    const v = await signAdvert(SECRET, a);
    expect(await verifyAdvert(SECRET, a.url, v)).toEqual(a);
    expect(await verifyAdvert("another-secret-another", a.url, v)).toBeNull();
    expect(await verifyAdvert(SECRET, "https://evil:8788", v)).toBeNull();
    expect(await verifyAdvert(SECRET, a.url, v.replace('"in_flight":0', '"in_flight":9'))).toBeNull();
    expect(await verifyAdvert(SECRET, a.url, "not-an-advert")).toBeNull();
  });
});

describe("the isolate's copy of the registry", () => {
  it("only the first call waits for a read; later calls are answered from memory and refresh in the background once per interval", async () => {
    let now = 2_000;
    let reads = 0;
    const stored: Record<string, string> = {
      "https://w1:8788": await signAdvert(SECRET, advert("https://w1:8788")),
      "https://forged:8788": await signAdvert("wrong-secret-wrong", advert("https://forged:8788")),
    };
    const reg = new GpuRegistry(
      async () => {
        reads++;
        return { ...stored };
      },
      SECRET,
      { refreshMs: 5_000, now: () => now },
    );
    const first = reg.members();
    expect(first).toBeInstanceOf(Promise);
    expect((await first).map((m) => m.url)).toEqual(["https://w1:8788"]);
    // 1,000 calls inside the interval: no read at all, never a promise (no round trip on the call).
    for (let i = 0; i < 1_000; i++) expect(Array.isArray(reg.members())).toBe(true);
    expect(reads).toBe(1);
    // Past the interval: the call still answers from memory and one background read refreshes the copy.
    stored["https://w2:8788"] = await signAdvert(
      SECRET,
      advert("https://w2:8788", { numerics_class: "cpu-b" }),
    );
    now += 5_000;
    const stale = reg.members() as readonly { url: string }[];
    expect(stale.map((m) => m.url)).toEqual(["https://w1:8788"]);
    reg.members();
    await reg.refresh();
    expect(reads).toBe(2);
    expect((reg.members() as readonly { url: string }[]).map((m) => m.url).sort()).toEqual([
      "https://w1:8788",
      "https://w2:8788",
    ]);
  });

  it("a lapsed heartbeat stops use at its expiry, even before the next read", async () => {
    let now = 2_000;
    const reg = new GpuRegistry(
      async () => ({
        "https://w1:8788": await signAdvert(SECRET, advert("https://w1:8788", { expires_at: 10_000 })),
        "https://w2:8788": await signAdvert(SECRET, advert("https://w2:8788", { expires_at: 20_000 })),
      }),
      SECRET,
      { refreshMs: 60_000, now: () => now },
    );
    expect((await reg.members()).length).toBe(2);
    now = 10_000;
    expect((reg.members() as readonly { url: string }[]).map((m) => m.url)).toEqual(["https://w2:8788"]);
  });

  it("a failed read keeps the last copy and is retried a second later, not on every call", async () => {
    let now = 0;
    let fail = false;
    let reads = 0;
    const reg = new GpuRegistry(
      async () => {
        reads++;
        if (fail) throw new Error("upstash down");
        return {
          "https://w1:8788": await signAdvert(SECRET, advert("https://w1:8788", { expires_at: 99_000 })),
        };
      },
      SECRET,
      { refreshMs: 5_000, now: () => now },
    );
    await reg.members();
    fail = true;
    now = 5_000;
    const tick = () => new Promise((r) => setTimeout(r, 0));
    reg.members();
    await tick();
    expect(reads).toBe(2);
    for (let i = 0; i < 100; i++) expect((reg.members() as unknown[]).length).toBe(1);
    await tick();
    expect(reads).toBe(2);
    now = 6_000;
    reg.members();
    await tick();
    expect(reads).toBe(3);
  });

  it("GPU_POOL_URLS overrides the registry; without Upstash there is no registry", () => {
    const env = {
      UPSTASH_REDIS_REST_URL: "https://registry.example.com",
      UPSTASH_REDIS_REST_TOKEN: "t",
      GPU_SIGNING_SECRET: SECRET,
    };
    expect(poolSource(env as never, ["https://static:1/"]).members()).toEqual([{ url: "https://static:1" }]);
    expect(poolSource(env as never, [])).toBeInstanceOf(GpuRegistry);
    expect(poolSource({ GPU_SIGNING_SECRET: SECRET } as never, []).members()).toEqual([]);
  });
});

// Two workers of two numerics classes known only from the registry: calls go by the adverts, with no /readyz.
const probes: string[] = [];
function worker(klass: string): Server {
  const server: Server = createServer(async (req, res) => {
    if (req.url === "/readyz") probes.push(klass);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    const answer = JSON.stringify({
      model: body.model,
      calibration: "cal-20261123-2",
      answers: [],
      meter: { tokens_evaluated: 1, tokens_reused: 0 },
      numerics_class: klass,
    });
    const self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await endSigned(res, SECRET, self, body.request_id ?? READY_REQUEST_ID, answer);
  });
  return server;
}
const servers = [worker("cpu-a"), worker("cuda-b")];
const urls: string[] = [];
beforeAll(async () => {
  for (const s of servers) {
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    urls.push(`http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  }
});
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

describe("the pool routes by registry adverts (versions × numerics class)", () => {
  it("a replay pinned to a class goes to that class's worker, a version goes to a worker serving it", async () => {
    const now = Date.now();
    const [a, b] = urls as [string, string];
    const reg = new GpuRegistry(
      async () => ({
        [a]: await signAdvert(SECRET, advert(a, { announced_at: now, expires_at: now + 60_000 })),
        [b]: await signAdvert(
          SECRET,
          advert(b, {
            numerics_class: "cuda-b",
            models: ["svc-1.3.0"],
            announced_at: now,
            expires_at: now + 60_000,
          }),
        ),
      }),
      SECRET,
    );
    const pool = new GpuPool(reg, SECRET);
    const req = (model: string, numerics_class?: string) => ({
      request_id: "r",
      model,
      state: "s",
      questions: [],
      ...(numerics_class && { numerics_class }),
    });
    expect((await pool.score(req("svc-1.3.0"))).numerics_class).toBe("cuda-b");
    expect((await pool.score(req("svc-1.4.0", "cpu-a"))).numerics_class).toBe("cpu-a");
    await expect(pool.score(req("svc-1.4.0", "cuda-b"))).rejects.toMatchObject({ reason: "no_capacity" });
    expect(pool.size).toBe(2);
    expect(probes).toEqual([]);
  });
});
