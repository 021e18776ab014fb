// The exact sliding-log limiter on real Redis (through the Upstash bridge), with an injected clock.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { enterCall } from "../../../workers/decide/admission";
import { ApiError } from "../../../workers/errors";
import type { MoneySubject } from "../../../workers/limits/key-limits";
import { AdmissionStore } from "../../../workers/stores/admission";
import type { OriginalResult } from "../../../workers/stores/idempotency";
import { redisAccess } from "../../../workers/stores/redis";
import { stack } from "../../support/stack-db";

const limiter = () => new AdmissionStore(redisAccess(stack()));
const done = { kind: "completed", result: {} as OriginalResult } as const;

/** Steps 7–8 for an unkeyed call at `now`. */
const enter = (l: AdmissionStore, s: MoneySubject, requestId: string, tokens: number, now: number) =>
  enterCall(l, { subject: s, requestId, tokens, idempotencyKey: undefined, body: null, now }, () => {});
let n = 0;
const subject = (limits: { rpm: number; tpm: number }): MoneySubject => {
  n++;
  return {
    keyId: `key_exact_${Date.now()}_${n}`,
    accountId: `acc_exact_${Date.now()}_${n}`,
    mode: "live",
    keyLimits: limits,
    accountLimits: { rpm: 1_000_000, tpm: 1_000_000_000 },
  };
};

/** Admits or returns the 429's code and retry-after (s); the slot is released at once. */
async function attempt(
  l: AdmissionStore,
  s: MoneySubject,
  tokens: number,
  now: number,
): Promise<{ ok: true } | { ok: false; code: string; retryAfter: number }> {
  try {
    const entry = await enter(l, s, `req_${now}_${Math.random()}`, tokens, now);
    if (entry.kind === "admitted") await entry.ticket.leave(done);
    return { ok: true };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { ok: false, code: err.code, retryAfter: err.options.retryAfter! };
  }
}

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

describe("'retry-after is the real wait' (exact sliding log, in the same atomic script as idempotency)", () => {
  it("a key told to wait is admitted exactly when its wait is over, not earlier (the old estimate refused again at 60 s)", async () => {
    const l = limiter();
    const s = subject({ rpm: 5, tpm: 1_000_000 });
    for (const dt of [0, 10_000, 20_000, 30_000, 40_000])
      expect((await attempt(l, s, 10, T0 + dt)).ok).toBe(true);
    const refused = await attempt(l, s, 10, T0 + 49_000);
    expect(refused).toEqual({ ok: false, code: "requests_per_minute", retryAfter: 11 });
    expect((await attempt(l, s, 10, T0 + 59_999)).ok).toBe(false);
    expect((await attempt(l, s, 10, T0 + 49_000 + 11_000)).ok).toBe(true);
  });

  it("tokens: the wait is until enough of the oldest calls leave the window for this call to fit", async () => {
    const l = limiter();
    const s = subject({ rpm: 1_000, tpm: 100 });
    expect((await attempt(l, s, 40, T0)).ok).toBe(true);
    expect((await attempt(l, s, 40, T0 + 5_000)).ok).toBe(true);
    const refused = await attempt(l, s, 50, T0 + 7_000); // 80 used; fits once the first call has left
    expect(refused).toEqual({ ok: false, code: "tokens_per_minute", retryAfter: 53 });
    expect((await attempt(l, s, 50, T0 + 59_999)).ok).toBe(false);
    expect((await attempt(l, s, 50, T0 + 60_000)).ok).toBe(true);
  });

  it("tokens: a log without its running sum (written before the sums existed) is counted from the log once", async () => {
    const l = limiter();
    const s = subject({ rpm: 1_000, tpm: 100 });
    expect((await attempt(l, s, 40, T0)).ok).toBe(true);
    expect((await attempt(l, s, 40, T0 + 5_000)).ok).toBe(true);
    const redis = () => redisAccess(stack());
    await redis().run((r) => r.del(`rl:k:${s.keyId}:tpm:sum`));
    expect(await attempt(l, s, 50, T0 + 7_000)).toEqual({
      ok: false,
      code: "tokens_per_minute",
      retryAfter: 53,
    });
    expect((await attempt(l, s, 20, T0 + 7_000)).ok).toBe(true);
    expect(await redis().run((r) => r.get(`rl:k:${s.keyId}:tpm:sum`))).toBe(100);
    expect((await attempt(l, s, 40, T0 + 60_000)).ok).toBe(true); // the first call's 40 left with the trim
    expect(await redis().run((r) => r.get(`rl:k:${s.keyId}:tpm:sum`))).toBe(100);
  });

  it("a refunded call's tokens leave the log at once (a 5xx after admission is refunded in full)", async () => {
    const l = limiter();
    const s = subject({ rpm: 1_000, tpm: 100 });
    const entry = await enter(l, s, "req_refund", 100, T0);
    if (entry.kind !== "admitted") throw new Error("not admitted");
    await entry.ticket.leave({ kind: "failed" });
    expect((await attempt(l, s, 100, T0 + 1)).ok).toBe(true);
  });

  it("property: waiting the retry-after is always enough, and no 60-second span ever holds more than the quota", async () => {
    const l = limiter();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ gap: fc.integer({ min: 0, max: 20_000 }), tokens: fc.integer({ min: 1, max: 40 }) }),
          {
            minLength: 10,
            maxLength: 40,
          },
        ),
        async (calls) => {
          const quota = { rpm: 6, tpm: 120 };
          const s = subject(quota);
          const admitted: { at: number; tokens: number }[] = [];
          let now = T0;
          for (const c of calls) {
            now += c.gap;
            const r = await attempt(l, s, c.tokens, now);
            if (r.ok) {
              admitted.push({ at: now, tokens: c.tokens });
              continue;
            }
            expect(r.retryAfter).toBeGreaterThanOrEqual(1);
            expect(r.retryAfter).toBeLessThanOrEqual(60);
            now += r.retryAfter * 1000;
            expect(await attempt(l, s, c.tokens, now)).toEqual({ ok: true });
            admitted.push({ at: now, tokens: c.tokens });
          }
          for (const first of admitted) {
            const span = admitted.filter((a) => a.at >= first.at && a.at < first.at + 60_000);
            expect(span.length).toBeLessThanOrEqual(quota.rpm);
            expect(span.reduce((t, a) => t + a.tokens, 0)).toBeLessThanOrEqual(quota.tpm);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("a long call keeps what it holds: renewing restarts its slot's and its record's leases (issue 30)", () => {
  const keyed = (l: AdmissionStore, s: MoneySubject, requestId: string, now: number) =>
    enterCall(l, { subject: s, requestId, tokens: 10, idempotencyKey: "long", body: "long", now }, () => {});

  it("renewed at 4 min: a retry at 5 min 1 s is still 409 idempotency_in_progress (not a takeover); the slot's expiry moved on", async () => {
    const l = limiter();
    const s = subject({ rpm: 1_000, tpm: 1_000_000 });
    const first = await keyed(l, s, "req_long_1", T0);
    if (first.kind !== "admitted") throw new Error("not admitted");
    await first.ticket.renew(T0 + 4 * 60_000);
    const retry = await keyed(l, s, "req_long_1b", T0 + 5 * 60_000 + 1_000).catch((e) => e);
    expect((retry as ApiError).code).toBe("idempotency_in_progress");
    const slot = await redisAccess(stack()).run((r) =>
      r.zscore(`rl:a:${s.accountId}:inflight`, "req_long_1"),
    );
    expect(Number(slot)).toBe(T0 + 4 * 60_000 + 120_000);
    await first.ticket.leave(done);
  });

  it("not renewed: the same retry takes the lapsed record over (the earlier owner is settled with the ledger)", async () => {
    const l = limiter();
    const s = subject({ rpm: 1_000, tpm: 1_000_000 });
    const first = await keyed(l, s, "req_long_2", T0);
    if (first.kind !== "admitted") throw new Error("not admitted");
    const retry = await keyed(l, s, "req_long_2b", T0 + 5 * 60_000 + 1_000);
    expect(retry.kind).toBe("admitted");
    if (retry.kind === "admitted") expect(retry.ticket.lapsedOwners).toEqual(["req_long_2"]);
  });
});
