import { neon } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { seedAccount } from "../../../scripts/stack/seed";
import { ApiError } from "../../../workers/errors";
import { loadUsageReport, loadUsageSeries } from "../../../workers/reports/load";
import { parseUsageReportParams, parseUsageSeriesParams } from "../../../workers/reports/params";
import type { DbEnv } from "../../../workers/stores/db";
import { recordUsageEvent } from "../../../workers/stores/usage";
import { sumUsage } from "../../../workers/stores/usage-reports";
import { usageEvent, usageTargets } from "../../support/usage-events";

const H = 3_600_000;
const DAY0 = Date.UTC(2026, 10, 20); // 2026-11-20
const NOW = DAY0 + 3 * 24 * H;

async function seeded(env: DbEnv) {
  const sql = neon(env.DATABASE_URL!);
  const acc = await seedAccount((text, params) => sql.query(text, params));
  const [live, test] = acc.keys.map((k) => k.id) as [string, string];
  const events = [
    usageEvent(acc.accountId, DAY0 + 0 * H + 5, { key_id: live, input_tokens: 10, charge_micro_cents: 50 }),
    usageEvent(acc.accountId, DAY0 + 0 * H + 9, {
      key_id: live,
      input_tokens: 20,
      charge_micro_cents: 100,
      served_by: "fallback",
      model: "svc-fallback-1.0.0",
    }),
    usageEvent(acc.accountId, DAY0 + 25 * H, {
      key_id: test,
      input_tokens: 7,
      charge_micro_cents: 0,
      mode: "test",
      unit_price_micro_cents: 0,
      tier: "test",
    }),
    usageEvent(acc.accountId, DAY0 + 25 * H + 1, {
      key_id: test,
      status: 429,
      error_code: "requests_per_minute",
      served_by: null,
      charge_micro_cents: 0,
    }),
    usageEvent(acc.accountId, DAY0 + 49 * H, {
      key_id: live,
      status: 422,
      error_code: "invalid_value",
      model: null,
      served_by: null,
      charge_micro_cents: 0,
    }),
    usageEvent(acc.accountId, DAY0 + 49 * H + 2, { key_id: live, replayed: true, charge_micro_cents: 0 }),
    // Outside the queried ranges: the day before and the day after.
    usageEvent(acc.accountId, DAY0 - 1, { key_id: live }),
    usageEvent(acc.accountId, DAY0 + 72 * H, { key_id: live }),
  ];
  for (const e of events) await recordUsageEvent(env, e);
  return { accountId: acc.accountId, live, test };
}

describe.each(usageTargets())("usage report queries ($name)", ({ env: connect }) => {
  it("sums by day and by hour inside [start, end), per group", async () => {
    const env = await connect();
    const { accountId, live, test } = await seeded(env);
    const range = { accountId, startMs: DAY0, endMs: DAY0 + 72 * H };
    const byDay = await sumUsage(env, { ...range, granularity: "day", groupBy: "none" });
    expect(
      byDay.map((r) => [
        r.bucketMs - DAY0,
        r.requests,
        r.input_tokens,
        r.charge_micro_cents,
        r.gpu_requests,
        r.fallback_requests,
        r.error_requests,
      ]),
    ).toEqual([
      [0, 2, 30, 150, 1, 1, 0],
      [24 * H, 1, 7, 0, 1, 0, 1],
      [48 * H, 0, 0, 0, 0, 0, 1],
    ]);
    const byKeyHour = await sumUsage(env, { ...range, granularity: "hour", groupBy: "key" });
    expect(byKeyHour.map((r) => [r.group, (r.bucketMs - DAY0) / H, r.requests, r.error_requests])).toEqual(
      [
        [live, 0, 2, 0],
        [live, 49, 0, 1],
        [test, 25, 1, 1],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0)),
    );
    const byServedBy = await sumUsage(env, { ...range, granularity: "day", groupBy: "served_by" });
    expect(byServedBy.map((r) => [r.group, r.requests, r.error_requests])).toEqual([
      ["fallback", 1, 0],
      ["gpu", 1, 0],
      ["gpu", 1, 0],
      ["gpu", 0, 0],
      ["none", 0, 1],
      ["none", 0, 1],
    ]);
    const byModel = await sumUsage(env, { ...range, granularity: "day", groupBy: "model", keyId: live });
    expect(byModel.map((r) => [r.group, (r.bucketMs - DAY0) / H, r.requests, r.error_requests])).toEqual([
      ["none", 48, 0, 1],
      ["svc-1.0.0", 0, 1, 0],
      ["svc-1.0.0", 48, 0, 0],
      ["svc-fallback-1.0.0", 0, 1, 0],
    ]);
  });

  it("the series body: every UTC bucket, zeros included, grouped as asked", async () => {
    const env = await connect();
    const { accountId } = await seeded(env);
    const params = parseUsageSeriesParams(
      new URLSearchParams("start=2026-11-20&end=2026-11-23&group_by=none"),
    );
    const body = await loadUsageSeries(env, accountId, params);
    expect(body.series).toHaveLength(1);
    expect(body.series[0]!.points.map((p) => [p.start, p.requests, p.error_requests])).toEqual([
      ["2026-11-20T00:00:00Z", 2, 0],
      ["2026-11-21T00:00:00Z", 1, 1],
      ["2026-11-22T00:00:00Z", 0, 1],
    ]);
    const hourly = await loadUsageSeries(
      env,
      accountId,
      parseUsageSeriesParams(
        new URLSearchParams("start=2026-11-21&end=2026-11-22&granularity=hour&group_by=model"),
      ),
    );
    expect(
      hourly.series.map((s) => [
        s.group,
        s.points.length,
        s.points.reduce((a, p) => a + p.requests + p.error_requests, 0),
      ]),
    ).toEqual([["svc-1.0.0", 24, 2]]);
  });

  it("GET /v1/usage body per key; a key of another account is key_not_found", async () => {
    const env = await connect();
    const { accountId, live, test } = await seeded(env);
    const params = parseUsageReportParams(new URLSearchParams("start=2026-11-20&end=2026-11-22"), NOW);
    const body = await loadUsageReport(env, accountId, params);
    expect(body.data.map((d) => [d.key_id, d.points.map((p) => p.requests)])).toEqual(
      [
        [live, [2, 0]],
        [test, [0, 1]],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
    const other = await seeded(env);
    const foreign = parseUsageReportParams(new URLSearchParams(`start=2026-11-20&key_id=${other.live}`), NOW);
    await expect(loadUsageReport(env, accountId, foreign)).rejects.toSatisfy(
      (e) => e instanceof ApiError && e.code === "key_not_found" && e.options.param === "key_id",
    );
    const mine = parseUsageReportParams(new URLSearchParams(`start=2026-11-20&key_id=${test}`), NOW);
    const one = await loadUsageReport(env, accountId, mine);
    expect(one.data.map((d) => [d.key_id, d.points.map((p) => p.requests)])).toEqual([[test, [0, 1, 0, 0]]]);
  });
});
