import type { UsageBatchLines, UsageReport, UsageSeries } from "../../schema/usage";
import { ApiError } from "../errors";
import type { DbEnv } from "../stores/db";
import { accountHasKey, sumUsage } from "../stores/usage-reports";
import type { UsageRange, UsageReportParams, UsageSeriesParams } from "./params";
import { shapeBatchLines, shapeUsageReport, shapeUsageSeries } from "./shape";

/**
 * GET /v1/usage's body for an account: per key, every bucket of the range. A well-formed `key_id` of no key
 * in the account → 404 `key_not_found` (param `key_id`).
 */
export async function loadUsageReport(
  env: DbEnv,
  accountId: string,
  params: UsageReportParams,
): Promise<UsageReport> {
  if (params.keyId !== null && !(await accountHasKey(env, accountId, params.keyId)))
    throw new ApiError("key_not_found", { param: "key_id" });
  const rows = await sumUsage(env, { ...params, accountId, groupBy: "key" });
  return shapeUsageReport(params, rows);
}

/** GET /v1/console/usage/series's body for an account. */
export async function loadUsageSeries(
  env: DbEnv,
  accountId: string,
  params: UsageSeriesParams,
): Promise<UsageSeries> {
  const rows = await sumUsage(env, { ...params, accountId });
  return shapeUsageSeries(params, rows);
}

/** GET /v1/console/usage/batch-lines's body for an account: one read of the roll-ups, like the series. */
export async function loadBatchLines(
  env: DbEnv,
  accountId: string,
  range: UsageRange,
): Promise<UsageBatchLines> {
  const rows = await sumUsage(env, { ...range, accountId, groupBy: "none" });
  return shapeBatchLines(range, rows);
}
