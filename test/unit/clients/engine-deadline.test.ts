import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISPATCH_CEILING_MS, gpuTimeoutMs } from "../../../workers/clients/engine";
import { GpuPool, GpuPoolError } from "../../../workers/clients/gpu-pool";

const hanging = createServer(() => {}); // accepts, never answers
const tooSmall = createServer((_req, res) => {
  res.writeHead(413, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: "too_many_tokens", message: "context holds 8192" }));
});
let url = "";
let tooSmallUrl = "";
const listen = async (s: typeof hanging) => {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};
beforeAll(async () => {
  url = await listen(hanging);
  tooSmallUrl = await listen(tooSmall);
});
afterAll(() => {
  for (const s of [hanging, tooSmall]) {
    s.closeAllConnections();
    s.close();
  }
});

const req = { request_id: "req_x", model: "svc-1.0.0", state: "s", questions: [] } as never;

describe("dispatch has one ceiling; within it the deadline comes from the worker's speed", () => {
  it("the ceiling of one call is 15 minutes", () => {
    expect(DISPATCH_CEILING_MS).toBe(15 * 60 * 1000);
  });

  it("a GPU call's deadline grows with the request's tokens (16,384 tokens → 207 s)", () => {
    expect(gpuTimeoutMs(0)).toBe(10_000);
    expect(gpuTimeoutMs(16_384)).toBe(206_608);
  });

  it("no worker is waited on past the deadline: a hanging worker → no_capacity, not a hang", async () => {
    const pool = new GpuPool([url, url], "secret-secret-secret");
    const err = await pool.score(req, { timeoutMs: 60_000, deadlineAt: Date.now() + 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(GpuPoolError);
    expect((err as GpuPoolError).reason).toBe("no_capacity");
  });
});

describe("a call whose signal ends (client gone, leases lost) stops at once and tries nothing else", () => {
  it("aborted mid-call → GpuPoolError cancelled, the worker's connection closed", async () => {
    const pool = new GpuPool([url, url], "secret-secret-secret");
    const ends = new AbortController();
    setTimeout(() => ends.abort("client_gone"), 100);
    const started = Date.now();
    const err = await pool.score(req, { timeoutMs: 60_000, signal: ends.signal }).catch((e) => e);
    expect((err as GpuPoolError).reason).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("already aborted → no worker is called", async () => {
    const pool = new GpuPool([url], "secret-secret-secret");
    const err = await pool.score(req, { signal: AbortSignal.abort("lease_lost") }).catch((e) => e);
    expect((err as GpuPoolError).reason).toBe("cancelled");
  });
});

describe("'an engine \"too many tokens\" never surfaces as 500'", () => {
  it("a worker whose context cannot hold the request → the next one, else no_capacity (503), never a fault", async () => {
    const pool = new GpuPool([tooSmallUrl], "secret-secret-secret");
    const err = await pool.score(req, { timeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(GpuPoolError);
    expect((err as GpuPoolError).reason).toBe("no_capacity");
  });
});

describe("a batch call's timeout says nothing of the worker's health (batch work waits behind live work by design)", () => {
  it("after a batch call timed out, the next call still goes to that worker; after a live call timed out, it does not", async () => {
    let calls = 0;
    const counting = createServer(() => {
      calls++; // accepts, never answers
    });
    const countingUrl = await listen(counting);
    try {
      const pool = new GpuPool([countingUrl], "secret-secret-secret");
      const call = (priority: "live" | "batch") =>
        pool.score({ ...(req as object), priority } as never, { timeoutMs: 200 }).catch((e) => e);
      expect(((await call("batch")) as GpuPoolError).reason).toBe("no_capacity");
      expect(((await call("batch")) as GpuPoolError).reason).toBe("no_capacity");
      expect(calls).toBe(2);
      expect(((await call("live")) as GpuPoolError).reason).toBe("no_capacity");
      expect(calls).toBe(3);
      await call("live"); // the worker is backed off: not called
      expect(calls).toBe(3);
    } finally {
      counting.closeAllConnections();
      counting.close();
    }
  });
});
