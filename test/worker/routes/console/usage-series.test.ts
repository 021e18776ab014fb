import { describe, expect, it } from "vitest";
import { UsageSeries } from "../../../../schema/usage";
import { recordUsageEvent } from "../../../../workers/stores/usage";
import { consoleCall, consoleEnv, signIn } from "../../../support/console";
import { usageEvent } from "../../../support/usage-event";
import { expectError } from "../../../support/worker-http";

const DAY = Date.UTC(2026, 9, 20); // 2026-10-20

describe("GET /v1/console/usage/series (getUsageSeries) behind the console session, per the spec's table", () => {
  it("group_by served_by by day: points with start/end and every count; empty buckets as zeros", async () => {
    const s = await signIn();
    for (const e of [
      usageEvent(s.accountId, DAY + 60_000),
      usageEvent(s.accountId, DAY + 120_000, { served_by: "fallback" }),
      usageEvent(s.accountId, DAY + 86_400_000, { status: 503, error_code: "no_capacity", served_by: null }),
    ])
      await recordUsageEvent(consoleEnv, e);
    const res = await consoleCall(
      "GET",
      "/v1/console/usage/series?start=2026-10-20&end=2026-10-23&group_by=served_by",
      {
        cookie: s.cookie,
      },
    );
    expect(res.status).toBe(200);
    const body = UsageSeries.parse(await res.json());
    expect(body).toMatchObject({ object: "usage_series", granularity: "day", group_by: "served_by" });
    const gpu = body.series.find((g) => g.group === "gpu")!;
    expect(gpu.points).toHaveLength(3);
    expect(gpu.points[0]).toMatchObject({
      start: "2026-10-20T00:00:00Z",
      end: "2026-10-21T00:00:00Z",
      requests: 1,
      gpu_requests: 1,
    });
    expect(gpu.points[2]).toMatchObject({ requests: 0, input_tokens: 0 });
    expect(body.series.find((g) => g.group === "fallback")!.points[0]).toMatchObject({
      fallback_requests: 1,
    });
  });

  it("422 for a bad range with its param; 401 invalid_session without a session", async () => {
    const s = await signIn();
    await expectError(
      await consoleCall("GET", "/v1/console/usage/series?start=2026-10-20&end=2026-10-19", {
        cookie: s.cookie,
      }),
      422,
      "invalid_value",
      "end",
    );
    await expectError(
      await consoleCall("GET", "/v1/console/usage/series?end=2026-10-21", { cookie: s.cookie }),
      422,
      "missing_field",
      "start",
    );
    await expectError(
      await consoleCall("GET", "/v1/console/usage/series?start=2026-10-20&end=2026-10-21"),
      401,
      "invalid_session",
    );
  });
});
