import { UsageReport, UsageReportQuery } from "../../../schema/usage";
import { loadUsageReport } from "../../reports/load";
import { parseUsageReportParams } from "../../reports/params";
import { reportsUnavailable } from "../../reports/unavailable";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/**
 * GET /v1/usage: the key's account's usage per key, by UTC day (range up to 93 days) or hour (up to 7 days),
 * from the roll-ups; scope `usage:read`. Postgres unreachable → 503 `maintenance` (nothing changed).
 */
export const getUsage = endpoint(
  {
    method: "get",
    path: "/v1/usage",
    operationId: "getUsage",
    summary: "Usage per key by day or hour",
    description:
      "Query: `start` (YYYY-MM-DD, required), `end` (first date not included; default through today within the longest range), `granularity` (`day` default, or `hour`), `key_id`. Successful calls, input tokens, charges, the GPU / fallback split and error calls per bucket; replays are counted apart and add nothing.",
    request: { query: UsageReportQuery },
    auth: { scope: "usage:read" },
    responses: {
      200: jsonResponse("Usage per key, every bucket of the range (empty ones as zeros).", UsageReport),
    },
    errors: ["unknown_field", "missing_field", "invalid_value", "key_not_found"],
  },
  async function getUsageHandler(c) {
    const params = parseUsageReportParams(new URL(c.req.url).searchParams);
    const report = await loadUsageReport(c.env, c.var.apiKey.accountId, params).catch(
      reportsUnavailable("usage_report_failed"),
    );
    return c.json(report, 200);
  },
);
