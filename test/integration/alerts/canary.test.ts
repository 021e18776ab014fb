// Issue 43 item 3: the canary sends the README's decide with an operator test key through the whole edge to each
// worker × exact version it advertises and compares the answer bytes with those recorded for that version and
// numerics class. Two workers advertise the same version on the same class; one starts answering other numbers
// under it (a signed GPU stand-in: on the real small model, 1 and 2 threads gave the same bytes on this decide,
// measured, so no cheap setting of the real worker computes other bytes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CPU_CLASS } from "../../../schema/models";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { type FakeAlerts, startFakeAlerts } from "../../../scripts/stack/fake-alerts";
import { ADMIN_TOKEN, type StandInGpu, seed, startEdge, startStandInGpu } from "../../support/money-harness";

interface Check {
  worker: string;
  model: string;
  numericsClass: string;
  verdict: string;
}

let hook: FakeAlerts;
let good: StandInGpu;
let bad: StandInGpu;
let edge: EdgeWorker;

beforeAll(async () => {
  hook = await startFakeAlerts();
  good = await startStandInGpu("ok", CPU_CLASS);
  bad = await startStandInGpu("ok", CPU_CLASS);
  const account = await seed({ keys: [{ mode: "test" }] });
  edge = await startEdge({
    gpuUrls: [good.url, bad.url],
    bindings: { CANARY_API_KEY: account.keys[0]!.secret, ALERT_WEBHOOK_URL: hook.hookUrl },
  });
  const reset = await fetch(`${edge.url}/internal/canary/baselines`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(reset.status).toBe(200);
});

afterAll(async () => {
  await edge?.stop();
  await good?.close();
  await bad?.close();
  await hook?.close();
});

async function runCanary(): Promise<Check[]> {
  const res = await fetch(`${edge.url}/internal/canary/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { canary: Check[] }).canary;
}

const canaryAlerts = () => hook.received().filter((m) => m.text.includes("canary_mismatch"));

describe("canary", () => {
  it("'compares the answer bytes with the ones recorded for that version and class': a worker answering other bytes under its advertised class raises one alert naming it, resolved when it answers right again", async () => {
    const first = await runCanary();
    expect(first.map((c) => [c.worker, c.numericsClass, c.verdict])).toEqual([
      [good.url, CPU_CLASS, "recorded"],
      [bad.url, CPU_CLASS, "ok"],
    ]);
    expect(canaryAlerts()).toEqual([]);

    bad.setMode("other-bytes");
    const second = await runCanary();
    expect(second.find((c) => c.worker === bad.url)?.verdict).toBe("mismatch");
    expect(second.find((c) => c.worker === good.url)?.verdict).toBe("ok");
    expect(canaryAlerts().map((m) => m.text)).toEqual([expect.stringMatching(/^\[FIRING\] canary_mismatch/)]);
    expect(canaryAlerts()[0]!.text).toContain(bad.url);
    expect(canaryAlerts()[0]!.text).not.toContain(good.url);

    await runCanary(); // still wrong: the same incident, nothing sent again
    expect(canaryAlerts()).toHaveLength(1);

    bad.setMode("ok");
    const fixed = await runCanary();
    expect(fixed.every((c) => c.verdict === "ok")).toBe(true);
    expect(canaryAlerts().map((m) => m.text)).toEqual([
      expect.stringMatching(/^\[FIRING\] canary_mismatch/),
      expect.stringMatching(
        new RegExp(`^\\[RESOLVED\\] canary_mismatch .*${bad.url.replaceAll(".", "\\.")}`),
      ),
    ]);
  });

  it("'a 5xx … raises an alert naming the worker': a worker answering 503 fails the canary on it alone", async () => {
    bad.setMode("overloaded");
    const checks = await runCanary();
    expect(checks.find((c) => c.worker === bad.url)?.verdict).toBe("server_error");
    const firing = canaryAlerts().filter((m) => m.text.startsWith("[FIRING]"));
    expect(firing.at(-1)?.text).toContain(bad.url);
    bad.setMode("ok");
    await runCanary();
    expect(canaryAlerts().at(-1)?.text).toMatch(/^\[RESOLVED\] canary_mismatch/);
  });
});
