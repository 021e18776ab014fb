import { UsageSeries, UsageSeriesQuery } from "../../../../schema/usage";
import { loadUsageSeries } from "../../../reports/load";
import { parseUsageSeriesParams } from "../../../reports/params";
import { reportsUnavailable } from "../../../reports/unavailable";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/**
 * GET /v1/console/usage/series (`getUsageSeries`): the signed-in account's usage by UTC day or hour, grouped
 * by none, key, model or served_by, empty buckets as zeros (spec: Usage series). Postgres unreachable → 503
 * `maintenance`.
 */
export const getUsageSeries = endpoint(
  {
    method: "get",
    path: "/v1/console/usage/series",
    operationId: "getUsageSeries",
    summary: "The signed-in account's usage series",
    description:
      "Query: `start` and `end` (YYYY-MM-DD, end not included; required), `granularity` (`day` default, or `hour`), `group_by` (`none` default, `key`, `model`, `served_by`). Day ranges up to 93 days, hour ranges up to 7 days.",
    request: { query: UsageSeriesQuery },
    auth: "session",
    responses: { 200: jsonResponse("The series, every bucket of the range.", UsageSeries) },
    errors: ["unknown_field", "missing_field", "invalid_value"],
  },
  async function getUsageSeriesHandler(c) {
    const params = parseUsageSeriesParams(new URL(c.req.url).searchParams);
    const series = await loadUsageSeries(c.env, c.var.session.accountId, params).catch(
      reportsUnavailable("usage_series_failed"),
    );
    return c.json(series, 200);
  },
);
