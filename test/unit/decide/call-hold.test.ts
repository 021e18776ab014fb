import { afterEach, describe, expect, it, vi } from "vitest";
import { holdCall } from "../../../workers/decide/call-hold";

afterEach(() => {
  vi.useRealTimers();
});

const lease = { everyMs: 30_000, leaseMs: 300_000, marginMs: 60_000 };

describe("a call at work keeps its concurrency slot and its idempotency lease (issue 30: renewed while the work progresses)", () => {
  it("renews every 30 s; while renewals succeed the call is never ended, however long it runs", async () => {
    vi.useFakeTimers();
    const renew = vi.fn(async () => {});
    const hold = holdCall({ renew }, lease);
    await vi.advanceTimersByTimeAsync(14 * 60_000);
    expect(renew).toHaveBeenCalledTimes(28);
    expect(hold.signal.aborted).toBe(false);
    hold.release();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(renew).toHaveBeenCalledTimes(28);
  });

  it("renewals failing (Redis down): the call ends a minute before its last lease would lapse, so a retry never runs beside it", async () => {
    vi.useFakeTimers();
    let up = true;
    const renew = vi.fn(async () => {
      if (!up) throw new Error("redis down");
    });
    vi.spyOn(console, "error").mockImplementation(() => {});
    const hold = holdCall({ renew }, lease);
    await vi.advanceTimersByTimeAsync(60_000); // renewed at 30 s and 60 s
    up = false;
    await vi.advanceTimersByTimeAsync(240_000 - 1);
    expect(hold.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(hold.signal.aborted).toBe(true);
    expect(hold.signal.reason).toBe("lease_lost");
    hold.release();
  });

  it("the client going away (request.signal) ends the call at once", () => {
    const client = new AbortController();
    const hold = holdCall({ renew: async () => {} }, { ...lease, client: client.signal });
    expect(hold.signal.aborted).toBe(false);
    client.abort();
    expect(hold.signal.aborted).toBe(true);
    expect(hold.signal.reason).toBe("client_gone");
    hold.release();
  });
});
