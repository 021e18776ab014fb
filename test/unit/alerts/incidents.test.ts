// Issue 43 item 4: "each alert is raised once per incident and resolved when it clears" — the incident rules on
// the in-memory store (the Postgres and Redis stores are exercised by the worker and integration tiers).
import { describe, expect, it } from "vitest";
import { DEMO_DECIDE } from "../../../scripts/stack/demo-decide";
import { canaryCheck, poolCheck, serverErrorsCheck } from "../../../workers/alerts/checks";
import { ALERTS, type CheckResult, thresholds } from "../../../workers/alerts/definitions";
import { applyCheck, memoryIncidents } from "../../../workers/alerts/incidents";
import { alertMessage, notifyPending } from "../../../workers/alerts/webhook";
import { readmeDecide } from "../../../workers/canary/readme-decide";
import type { Env } from "../../../workers/env";

const firing = (forMs = 0): CheckResult => ({
  alert: "redis_unreachable",
  forMs,
  firing: [{ key: "redis_unreachable", summary: "down", detail: "refused" }],
});
const clear: CheckResult = { alert: "redis_unreachable", forMs: 0, firing: [] };
const unknown: CheckResult = { alert: "redis_unreachable", forMs: 0, firing: null };

describe("incidents", () => {
  it("'raised once per incident and resolved when it clears': open once, kept while it fires, resolved once", async () => {
    const store = memoryIncidents();
    expect(await applyCheck(store, firing(), 1_000)).toEqual({ opened: ["redis_unreachable"], resolved: [] });
    expect(await applyCheck(store, firing(), 61_000)).toEqual({ opened: [], resolved: [] });
    expect(await applyCheck(store, clear, 121_000)).toEqual({ opened: [], resolved: ["redis_unreachable"] });
    expect(await applyCheck(store, clear, 181_000)).toEqual({ opened: [], resolved: [] });
  });

  it("'for 1 minute': a condition opens only once it held for its duration; one that cleared before is forgotten", async () => {
    const store = memoryIncidents();
    expect((await applyCheck(store, firing(60_000), 0)).opened).toEqual([]);
    expect((await applyCheck(store, firing(60_000), 30_000)).opened).toEqual([]);
    expect(await applyCheck(store, clear, 45_000)).toEqual({ opened: [], resolved: [] });
    expect(await store.unresolved("redis_unreachable")).toEqual([]);
    expect((await applyCheck(store, firing(60_000), 50_000)).opened).toEqual([]);
    expect((await applyCheck(store, firing(60_000), 110_000)).opened).toEqual(["redis_unreachable"]);
  });

  it("an unobservable check (its store down) neither opens nor resolves", async () => {
    const store = memoryIncidents();
    await applyCheck(store, firing(), 0);
    expect(await applyCheck(store, unknown, 60_000)).toEqual({ opened: [], resolved: [] });
    expect(await store.unresolved("redis_unreachable")).toHaveLength(1);
  });

  it("a notification that did not arrive is sent on the next tick, FIRING before RESOLVED, each once", async () => {
    const store = memoryIncidents();
    await applyCheck(store, firing(), 0);
    const sent: string[] = [];
    let up = false;
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (_url: string, init: RequestInit) => {
      if (!up) return new Response("down", { status: 500 });
      sent.push((JSON.parse(String(init.body)) as { text: string }).text);
      return new Response("ok");
    }) as typeof fetch;
    try {
      expect(await notifyPending(store, "https://hooks.example/x", "test", 1)).toBe(0);
      await applyCheck(store, clear, 2);
      up = true;
      expect(await notifyPending(store, "https://hooks.example/x", "test", 3)).toBe(2);
      expect(await notifyPending(store, "https://hooks.example/x", "test", 4)).toBe(0);
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(sent.map((t) => t.slice(0, 28))).toEqual([
      "[FIRING] redis_unreachable (",
      "[RESOLVED] redis_unreachable",
    ]);
  });

  it("the webhook body is Slack's: text, and a section block that links the runbook", () => {
    const msg = alertMessage(
      {
        key: "canary:https://w1",
        alert: "canary_mismatch",
        summary: "canary: worker https://w1: svc-1.4.0 on cpu-x mismatch",
        detail: "",
        pendingSince: 0,
        openedAt: 0,
        lastSeenAt: 0,
        resolvedAt: null,
        openSentAt: null,
        resolveSentAt: null,
      },
      "firing",
      "production",
    );
    expect(msg.text).toBe(
      "[FIRING] canary_mismatch (production): canary: worker https://w1: svc-1.4.0 on cpu-x mismatch",
    );
    expect(msg.blocks).toEqual([
      {
        type: "section",
        text: { type: "mrkdwn", text: expect.stringContaining("docs/operations.md#canary_mismatch") },
      },
    ]);
    expect(Object.keys(ALERTS)).toContain(msg.text.split(" ")[1]);
  });
});

describe("checks", () => {
  const t = thresholds({} as Env);

  it("defaults: 15 minutes for refund intents, 60 s for the pool", () => {
    expect([t.refundIntentMinutes, t.poolDownMs]).toEqual([15, 60_000]);
  });

  it("'the pool empty or every worker 503': fires with no worker or none ready; an unreadable registry is unknown", () => {
    const w = (ready: boolean) => ({
      url: "https://w",
      ready,
      status: ready ? 200 : 503,
      numericsClass: null,
      models: [],
    });
    expect(poolCheck([], t).firing).toHaveLength(1);
    expect(poolCheck([w(false), w(false)], t).firing).toHaveLength(1);
    expect(poolCheck([w(false), w(true)], t).firing).toEqual([]);
    expect(poolCheck(null, t).firing).toBeNull();
  });

  it("'5xx above 1 % over 5 minutes': above 1 % and at least 3 of them", () => {
    const fires = (total: number, serverErrors: number) =>
      (serverErrorsCheck({ total, serverErrors, noCapacity: 0 }, t).firing ?? []).length === 1;
    expect(fires(1_000, 11)).toBe(true);
    expect(fires(1_000, 10)).toBe(false); // exactly 1 %
    expect(fires(100, 2)).toBe(false); // 2 %, but two calls on a quiet minute
    expect(fires(100, 3)).toBe(true);
    expect(fires(0, 0)).toBe(false);
  });

  it("the canary opens one incident per worker, naming it", () => {
    const c = (worker: string, verdict: "ok" | "mismatch" | "slow") => ({
      worker,
      model: "svc-1.4.0",
      numericsClass: "cpu-x",
      verdict,
      status: 200,
      ms: 1,
      detail: "",
    });
    const r = canaryCheck([c("https://a", "ok"), c("https://b", "mismatch"), c("https://b", "slow")]);
    expect(r.firing?.map((f) => f.key)).toEqual(["canary:https://b"]);
    expect(r.firing?.[0]?.summary).toContain("https://b");
  });

  it("the canary's request is the README's decide", () => {
    expect(JSON.parse(readmeDecide("svc-1.4.0"))).toEqual({ ...DEMO_DECIDE, model: "svc-1.4.0" });
  });
});
