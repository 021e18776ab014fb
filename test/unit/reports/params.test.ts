import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../workers/errors";
import { formatUtcDate, parseUtcDate } from "../../../workers/reports/buckets";
import {
  defaultUsageEnd,
  parseUsageReportParams,
  parseUsageSeriesParams,
} from "../../../workers/reports/params";

const NOW = Date.UTC(2026, 10, 23, 14, 30); // 2026-11-23T14:30Z
const KEY = "key_01JD0000000000000000000000";

function failure(fn: () => unknown): { code: string; param?: string; status: number } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, param: e.options.param, status: e.status };
    throw e;
  }
  throw new Error("no error");
}
const usage = (q: string) => () => parseUsageReportParams(new URLSearchParams(q), NOW);
const series = (q: string) => () => parseUsageSeriesParams(new URLSearchParams(q));

describe("UTC dates", () => {
  it("only real calendar dates in YYYY-MM-DD, from 1970", () => {
    expect(parseUtcDate("2024-02-29")).toBe(Date.UTC(2024, 1, 29));
    for (const bad of [
      "2023-02-29",
      "2026-13-01",
      "2026-00-10",
      "2026-1-05",
      "2026-01-05T00:00:00Z",
      "",
      "1969-12-31",
      " 2026-01-05",
    ])
      expect(parseUtcDate(bad)).toBeNull();
  });

  it("round-trips every day (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_932_896 }), (day) => {
        const ms = day * 86_400_000;
        expect(parseUtcDate(formatUtcDate(ms))).toBe(ms);
      }),
    );
  });
});

describe("GET /v1/usage parameters", () => {
  it("defaults: granularity day, no key filter, end through today", () => {
    expect(parseUsageReportParams(new URLSearchParams("start=2026-11-01"), NOW)).toEqual({
      start: "2026-11-01",
      end: "2026-11-24",
      startMs: Date.UTC(2026, 10, 1),
      endMs: Date.UTC(2026, 10, 24),
      granularity: "day",
      keyId: null,
    });
    expect(usage(`start=2026-11-20&end=2026-11-21&granularity=hour&key_id=${KEY}`)()).toMatchObject({
      granularity: "hour",
      keyId: KEY,
      end: "2026-11-21",
    });
  });

  it("the default end never exceeds the longest range and always covers the start day", () => {
    expect(usage("start=2026-01-01")().end).toBe("2026-04-04"); // 93 days
    expect(usage("start=2026-11-01&granularity=hour")().end).toBe("2026-11-08"); // 7 days
    expect(usage("start=2026-12-25")().end).toBe("2026-12-26"); // a future start: one day
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40_000 }), fc.constantFrom("day", "hour" as const), (day, g) => {
        const start = day * 86_400_000;
        const end = defaultUsageEnd(start, g, NOW);
        expect(end).toBeGreaterThan(start);
        expect(end - start).toBeLessThanOrEqual((g === "day" ? 93 : 7) * 86_400_000);
        expect(end % 86_400_000).toBe(0);
      }),
    );
  });

  it("every 422 with its param", () => {
    expect(failure(usage(""))).toEqual({ code: "missing_field", param: "start", status: 422 });
    expect(failure(usage("end=2026-11-02"))).toEqual({ code: "missing_field", param: "start", status: 422 });
    expect(failure(usage("start=2026-11-31"))).toMatchObject({ code: "invalid_value", param: "start" });
    expect(failure(usage("start="))).toMatchObject({ code: "invalid_value", param: "start" });
    expect(failure(usage("start=2026-11-01&end=yesterday"))).toMatchObject({
      code: "invalid_value",
      param: "end",
    });
    expect(failure(usage("start=2026-11-01&granularity=week"))).toMatchObject({
      code: "invalid_value",
      param: "granularity",
    });
    expect(failure(usage("start=2026-11-01&key_id=key_1"))).toMatchObject({
      code: "invalid_value",
      param: "key_id",
    });
    expect(failure(usage("start=2026-11-01&end=2026-11-01"))).toMatchObject({
      code: "invalid_value",
      param: "end",
    });
    expect(failure(usage("start=2026-11-02&end=2026-11-01"))).toMatchObject({
      code: "invalid_value",
      param: "end",
    });
    expect(failure(usage("start=2026-01-01&end=2026-04-05"))).toMatchObject({
      code: "invalid_value",
      param: "end",
    });
    expect(failure(usage("start=2026-11-01&end=2026-11-09&granularity=hour"))).toMatchObject({
      code: "invalid_value",
      param: "end",
    });
    expect(failure(usage("start=2026-11-01&start=2026-11-02"))).toMatchObject({
      code: "invalid_value",
      param: "start",
    });
    expect(failure(usage("start=2026-11-01&group_by=key"))).toMatchObject({
      code: "unknown_field",
      param: "group_by",
    });
  });

  it("the longest ranges are allowed: 93 days by day, 7 days by hour", () => {
    expect(usage("start=2026-01-01&end=2026-04-04")().endMs - Date.UTC(2026, 0, 1)).toBe(93 * 86_400_000);
    expect(usage("start=2026-11-01&end=2026-11-08&granularity=hour")().end).toBe("2026-11-08");
  });

  it("precedence: unknown parameter, then missing start, then the first bad value in parameter order", () => {
    expect(failure(usage("foo=1"))).toMatchObject({ code: "unknown_field", param: "foo" });
    expect(failure(usage("granularity=x"))).toMatchObject({ code: "missing_field", param: "start" });
    expect(failure(usage("start=x&granularity=x"))).toMatchObject({ param: "start" });
    expect(failure(usage("start=2026-11-01&key_id=x&granularity=x"))).toMatchObject({ param: "granularity" });
    expect(failure(usage("start=2026-11-01&end=2026-10-01&key_id=x"))).toMatchObject({ param: "key_id" });
  });
});

describe("GET /v1/console/usage/series parameters", () => {
  it("start and end required; granularity day and group_by none by default", () => {
    expect(series("start=2026-11-01&end=2026-11-03")()).toEqual({
      start: "2026-11-01",
      end: "2026-11-03",
      startMs: Date.UTC(2026, 10, 1),
      endMs: Date.UTC(2026, 10, 3),
      granularity: "day",
      groupBy: "none",
    });
    for (const g of ["none", "key", "model", "served_by"])
      expect(series(`start=2026-11-01&end=2026-11-03&group_by=${g}`)().groupBy).toBe(g);
    expect(failure(series("start=2026-11-01"))).toMatchObject({ code: "missing_field", param: "end" });
    expect(failure(series("end=2026-11-01"))).toMatchObject({ code: "missing_field", param: "start" });
    expect(failure(series("start=2026-11-01&end=2026-11-03&group_by=account"))).toMatchObject({
      code: "invalid_value",
      param: "group_by",
    });
    expect(failure(series("start=2026-11-01&end=2026-11-03&key_id=" + KEY))).toMatchObject({
      code: "unknown_field",
      param: "key_id",
    });
    expect(failure(series("start=2026-11-01&end=2026-11-09&granularity=hour"))).toMatchObject({
      param: "end",
    });
  });
});
