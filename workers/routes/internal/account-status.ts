import { z } from "@hono/zod-openapi";
import { ACCOUNT_ID_PATTERN } from "../../../schema/ids";
import { orMaintenance } from "../../accounts/unavailable";
import { ApiError } from "../../errors";
import { setAccountStatus } from "../../stores/accounts";
import { type Endpoint, endpoint } from "../define";
import { jsonResponse } from "../responses";

const AccountStatusObject = z.object({
  object: z.literal("account_status"),
  account_id: z.string(),
  status: z.enum(["active", "suspended"]),
});

/**
 * POST /internal/accounts/{id}/suspend and /unsuspend (operator): sets the account's status. Keys and sessions
 * read it on every use (keys through their ≤1 s cache), so every key and session answers 403
 * `account_suspended` within about a second, and works again as quickly after unsuspending.
 */
function statusRoute(action: "suspend" | "unsuspend"): Endpoint {
  const status = action === "suspend" ? "suspended" : "active";
  return endpoint(
    {
      method: "post",
      path: `/internal/accounts/{id}/${action}`,
      operationId: `${action}Account`,
      summary: `${action === "suspend" ? "Suspend" : "Unsuspend"} an account (operator)`,
      auth: "admin-token",
      hidden: true,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonResponse("The account's new status.", AccountStatusObject) },
      errors: ["invalid_value", "maintenance"],
    },
    async function setAccountStatusHandler(c) {
      const id = c.req.param("id") ?? "";
      if (!ACCOUNT_ID_PATTERN.test(id))
        throw new ApiError("invalid_value", { param: "id", message: "Not an account id." });
      const found = await orMaintenance("accounts", () => setAccountStatus(c.var.db, id, status));
      if (!found) throw new ApiError("invalid_value", { param: "id", message: "No such account." });
      return c.json({ object: "account_status" as const, account_id: id, status }, 200);
    },
  );
}

export const suspendAccount = statusRoute("suspend");
export const unsuspendAccount = statusRoute("unsuspend");
