import { describe, expect, it } from "vitest";
import { UsageBatchLines, UsageSeries } from "../../../../schema/usage";
import { BATCH_CLIENT_NAME } from "../../../../workers/batches/runner";
import { recordUsageEvents } from "../../../../workers/stores/usage";
import { repairUsageRollups } from "../../../../workers/stores/usage-rollups";
import { consoleCall, consoleEnv, signIn } from "../../../support/console";
import { usageEvent } from "../../../support/usage-event";
import { expectError } from "../../../support/worker-http";

const DAY = Date.UTC(2026, 9, 20); // 2026-10-20
const batch = { client_name: BATCH_CLIENT_NAME };

describe("GET /v1/console/usage/batch-lines (getUsageBatchLines): batch lines told apart on the usage page (issue 42)", () => {
  it("batch lines (client name `(batch)`) are counted apart, as part of the series' totals, the same after a repair", async () => {
    const s = await signIn();
    await recordUsageEvents(consoleEnv, [
      usageEvent(s.accountId, DAY + 60_000, { ...batch, input_tokens: 40 }),
      usageEvent(s.accountId, DAY + 120_000, { ...batch, input_tokens: 60 }),
      usageEvent(s.accountId, DAY + 180_000, {
        ...batch,
        status: 500,
        error_code: "internal_error",
        served_by: null,
        charge_micro_cents: 0,
      }),
      // A decide with the same key and hour, and one whose client is another.
      usageEvent(s.accountId, DAY + 240_000, { input_tokens: 100 }),
      usageEvent(s.accountId, DAY + 86_400_000, { client_name: "svc-sdk", client_version: "1.0.0" }),
    ]);
    const read = async () => {
      const q = "start=2026-10-20&end=2026-10-22";
      const [lines, series] = await Promise.all([
        consoleCall("GET", `/v1/console/usage/batch-lines?${q}`, { cookie: s.cookie }),
        consoleCall("GET", `/v1/console/usage/series?${q}`, { cookie: s.cookie }),
      ]);
      expect(lines.status).toBe(200);
      return {
        lines: UsageBatchLines.parse(await lines.json()),
        series: UsageSeries.parse(await series.json()),
      };
    };
    const first = await read();
    expect(first.lines).toMatchObject({ object: "usage_batch_lines", granularity: "day" });
    expect(first.lines.points).toEqual([
      {
        start: "2026-10-20T00:00:00Z",
        end: "2026-10-21T00:00:00Z",
        requests: 2,
        input_tokens: 100,
        charge_micro_cents: 500,
        error_requests: 1,
      },
      {
        start: "2026-10-21T00:00:00Z",
        end: "2026-10-22T00:00:00Z",
        requests: 0,
        input_tokens: 0,
        charge_micro_cents: 0,
        error_requests: 0,
      },
    ]);
    expect(first.series.series[0]!.points[0]).toMatchObject({
      requests: 3,
      input_tokens: 200,
      error_requests: 1,
    });

    // The scheduled repair recomputes the roll-ups from the raw events with the same rule.
    await repairUsageRollups(consoleEnv, DAY, s.accountId, DAY + 2 * 86_400_000);
    expect(await read()).toEqual(first);

    const hours = await consoleCall(
      "GET",
      "/v1/console/usage/batch-lines?start=2026-10-20&end=2026-10-21&granularity=hour",
      { cookie: s.cookie },
    );
    const byHour = UsageBatchLines.parse(await hours.json());
    expect(byHour.points).toHaveLength(24);
    expect(byHour.points[0]).toMatchObject({ start: "2026-10-20T00:00:00Z", requests: 2 });
  });

  it("422 with its param for an unknown or missing parameter and a bad range; 401 invalid_session without a session", async () => {
    const s = await signIn();
    const call = (q: string, signedIn = true) =>
      consoleCall("GET", `/v1/console/usage/batch-lines?${q}`, signedIn ? { cookie: s.cookie } : {});
    await expectError(
      await call("start=2026-10-20&end=2026-10-21&group_by=key"),
      422,
      "unknown_field",
      "group_by",
    );
    await expectError(await call("end=2026-10-21"), 422, "missing_field", "start");
    await expectError(await call("start=2026-10-20&end=2026-10-19"), 422, "invalid_value", "end");
    await expectError(
      await call("start=2026-10-01&end=2026-10-20&granularity=hour"),
      422,
      "invalid_value",
      "end",
    );
    await expectError(await call("start=2026-10-20&end=2026-10-21", false), 401, "invalid_session");
  });
});
