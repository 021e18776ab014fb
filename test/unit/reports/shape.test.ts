import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageReport, UsageSeries } from "../../../schema/usage";
import { parseUsageReportParams, parseUsageSeriesParams } from "../../../workers/reports/params";
import { shapeUsageReport, shapeUsageSeries } from "../../../workers/reports/shape";
import type { UsageBucketRow } from "../../../workers/stores/usage-reports";

const H = 3_600_000;
const D = 24 * H;
const row = (bucketMs: number, group: string | null, requests = 1): UsageBucketRow => ({
  bucketMs,
  group,
  requests,
  input_tokens: requests * 100,
  charge_micro_cents: requests * 500,
  gpu_requests: requests,
  fallback_requests: 0,
  error_requests: 2,
  batch_requests: 0,
  batch_input_tokens: 0,
  batch_charge_micro_cents: 0,
  batch_error_requests: 0,
});
const seriesParams = (q: string) => parseUsageSeriesParams(new URLSearchParams(q));

describe("usage series shaping", () => {
  it("group_by none: one series with group null and every day, empty days as zeros", () => {
    const p = seriesParams("start=2026-11-01&end=2026-11-04");
    const body = shapeUsageSeries(p, [row(Date.UTC(2026, 10, 2), null, 3)]);
    expect(body).toEqual({
      object: "usage_series",
      start: "2026-11-01",
      end: "2026-11-04",
      granularity: "day",
      group_by: "none",
      series: [
        {
          group: null,
          points: [
            {
              start: "2026-11-01T00:00:00Z",
              end: "2026-11-02T00:00:00Z",
              requests: 0,
              input_tokens: 0,
              charge_micro_cents: 0,
              gpu_requests: 0,
              fallback_requests: 0,
              error_requests: 0,
            },
            {
              start: "2026-11-02T00:00:00Z",
              end: "2026-11-03T00:00:00Z",
              requests: 3,
              input_tokens: 300,
              charge_micro_cents: 1500,
              gpu_requests: 3,
              fallback_requests: 0,
              error_requests: 2,
            },
            expect.objectContaining({
              start: "2026-11-03T00:00:00Z",
              end: "2026-11-04T00:00:00Z",
              requests: 0,
            }),
          ],
        },
      ],
    });
    expect(shapeUsageSeries(p, []).series).toHaveLength(1);
  });

  it("grouped: one series per group seen, in code-point order; none when nothing was used", () => {
    const p = seriesParams("start=2026-11-01&end=2026-11-02&granularity=hour&group_by=served_by");
    const t = Date.UTC(2026, 10, 1);
    const body = shapeUsageSeries(p, [row(t + 5 * H, "none"), row(t + H, "gpu"), row(t, "fallback")]);
    expect(body.series.map((s) => s.group)).toEqual(["fallback", "gpu", "none"]);
    expect(body.series.every((s) => s.points.length === 24)).toBe(true);
    expect(body.series[1]!.points[1]).toMatchObject({
      start: "2026-11-01T01:00:00Z",
      end: "2026-11-01T02:00:00Z",
    });
    expect(shapeUsageSeries(p, []).series).toEqual([]);
  });

  it("buckets tile the range exactly and keep every count (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom("day", "hour"),
        fc.array(
          fc.tuple(fc.nat(7 * 24 - 1), fc.constantFrom("a", "b", "c"), fc.integer({ min: 1, max: 1000 })),
        ),
        (day, days, g, raw) => {
          const start = new Date(day * D).toISOString().slice(0, 10);
          const end = new Date((day + days) * D).toISOString().slice(0, 10);
          const p = seriesParams(`start=${start}&end=${end}&granularity=${g}&group_by=key`);
          const width = g === "day" ? D : H;
          const seen = new Map<string, UsageBucketRow>();
          for (const [i, grp, n] of raw) {
            const b = day * D + Math.min(i * H, days * D - H);
            const bucket = b - (b % width);
            seen.set(`${grp}|${bucket}`, row(bucket, grp, n));
          }
          const rows = [...seen.values()];
          const body = shapeUsageSeries(p, rows);
          expect(UsageSeries.parse(body)).toEqual(body); // the wire schema, no field more or less
          for (const s of body.series) {
            expect(s.points.length).toBe((days * D) / width);
            expect(s.points[0]!.start).toBe(`${start}T00:00:00Z`);
            expect(s.points.at(-1)!.end).toBe(`${end}T00:00:00Z`);
            for (let i = 1; i < s.points.length; i++) expect(s.points[i]!.start).toBe(s.points[i - 1]!.end);
          }
          const total = body.series.flatMap((s) => s.points).reduce((a, x) => a + x.requests, 0);
          expect(total).toBe(rows.reduce((a, r) => a + r.requests, 0));
        },
      ),
    );
  });
});

describe("usage report shaping", () => {
  const NOW = Date.UTC(2026, 10, 23, 12);
  it("one entry per key with usage; the filtered key even without usage", () => {
    const p = parseUsageReportParams(new URLSearchParams("start=2026-11-20&end=2026-11-22"), NOW);
    const body = shapeUsageReport(p, [
      row(Date.UTC(2026, 10, 21), "key_B"),
      row(Date.UTC(2026, 10, 20), "key_A"),
    ]);
    expect(body).toMatchObject({
      object: "usage",
      start: "2026-11-20",
      end: "2026-11-22",
      granularity: "day",
      key_id: null,
    });
    expect(UsageReport.parse(body)).toEqual(body); // the wire schema, no field more or less
    expect(body.data.map((d) => [d.object, d.key_id, d.points.map((x) => x.requests)])).toEqual([
      ["key_usage", "key_A", [1, 0]],
      ["key_usage", "key_B", [0, 1]],
    ]);
    const key = "key_01JD0000000000000000000000";
    const only = parseUsageReportParams(
      new URLSearchParams(`start=2026-11-20&end=2026-11-22&key_id=${key}`),
      NOW,
    );
    expect(shapeUsageReport(only, []).data).toEqual([
      {
        object: "key_usage",
        key_id: key,
        points: [expect.objectContaining({ requests: 0 }), expect.objectContaining({ requests: 0 })],
      },
    ]);
  });
});
