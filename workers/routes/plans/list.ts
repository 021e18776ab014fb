import { sha256Hex } from "../../../schema/hex";
import { PlanList } from "../../../schema/plan-list";
import { currentPlanList, SEAT_COUNTS_MAX_AGE_MS } from "../../billing/plan-list";
import { ApiError } from "../../errors";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** Browsers and caches may keep the list this long; with the isolate's own cache the counts stay ≤ 10 s old. */
const MAX_AGE_SECONDS = 10 - SEAT_COUNTS_MAX_AGE_MS / 1000;

/**
 * GET /v1/plans (`listPublicPlans`): the plan list with seats taken and left, no authentication, readable from
 * any origin (CORS, no credentials). 120 requests a minute per client address. `ETag` + `If-None-Match`
 * → 304; `Cache-Control: public, max-age=5`, so no copy is older than 10 seconds.
 */
export const listPublicPlans = endpoint(
  {
    method: "get",
    path: "/v1/plans",
    operationId: "listPublicPlans",
    summary: "Plans, seats left and top-up packs (public)",
    auth: "public",
    responses: {
      200: jsonResponse("The plan list (seat counts at most 10 seconds old).", PlanList),
      304: { description: "Not modified (`If-None-Match` matched the `ETag`)." },
    },
    errors: ["requests_per_minute", "maintenance"],
  },
  async function listPublicPlansHandler(c) {
    await c.var.addressLimits.planListRead(c.req.header("cf-connecting-ip") ?? "unknown");
    const list = await currentPlanList(c.var.db).catch(() => {
      throw new ApiError("maintenance", { message: "The plan list is temporarily unavailable." });
    });
    const body = JSON.stringify(list);
    const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`;
    c.header("etag", etag);
    c.header("cache-control", `public, max-age=${MAX_AGE_SECONDS}`);
    c.header("vary", "origin");
    if (c.req.header("if-none-match") === etag) return c.body(null, 304);
    c.header("content-type", "application/json");
    return c.body(body, 200);
  },
);
