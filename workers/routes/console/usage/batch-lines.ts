import { UsageBatchLines, UsageBatchLinesQuery } from "../../../../schema/usage";
import { loadBatchLines } from "../../../reports/load";
import { parseUsageRangeParams } from "../../../reports/params";
import { reportsUnavailable } from "../../../reports/unavailable";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/**
 * GET /v1/console/usage/batch-lines (`getUsageBatchLines`): of the signed-in account's calls, the batch lines, by
 * UTC day or hour over the usage series' range (docs/decisions.md, "Batch lines on the usage page"). Console
 * only: the spec's usage series keeps its shape. Postgres unreachable → 503 `maintenance`.
 */
export const getUsageBatchLines = endpoint(
  {
    method: "get",
    path: "/v1/console/usage/batch-lines",
    operationId: "getUsageBatchLines",
    summary: "The signed-in account's batch lines, bucketed like the usage series",
    description:
      "Query: `start` and `end` (YYYY-MM-DD, end not included; required), `granularity` (`day` default, or `hour`). Day ranges up to 93 days, hour ranges up to 7 days. The counts are part of the usage series' counts.",
    request: { query: UsageBatchLinesQuery },
    auth: "session",
    responses: { 200: jsonResponse("Every bucket of the range.", UsageBatchLines) },
    errors: ["unknown_field", "missing_field", "invalid_value"],
  },
  async function getUsageBatchLinesHandler(c) {
    const range = parseUsageRangeParams(new URL(c.req.url).searchParams);
    const body = await loadBatchLines(c.env, c.var.session.accountId, range).catch(
      reportsUnavailable("usage_batch_lines_failed"),
    );
    return c.json(body, 200);
  },
);
