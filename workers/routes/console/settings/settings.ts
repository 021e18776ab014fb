import { SettingsObject } from "../../../../schema/console";
import { currentAccount } from "../../../accounts/current-account";
import { orMaintenance } from "../../../accounts/unavailable";
import { ApiError } from "../../../errors";
import type { AccountRow } from "../../../stores/accounts";
import { setContentLogDays } from "../../../stores/accounts";
import { deleteAccountContentLogs } from "../../../stores/content-logs";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { BODY_ERRORS, intField, readJsonObject } from "../body";

function settingsJson(a: AccountRow) {
  return {
    object: "settings" as const,
    account_id: a.id,
    content_logging: { enabled: a.contentLogDays !== null, retention_days: a.contentLogDays },
  };
}

/** GET /v1/console/settings: the account's settings (content logging, off by default). */
export const getSettings = endpoint(
  {
    method: "get",
    path: "/v1/console/settings",
    operationId: "getAccountSettings",
    summary: "Account settings",
    auth: "session",
    responses: { 200: jsonResponse("The settings.", SettingsObject) },
    errors: [],
  },
  async function getSettingsHandler(c) {
    return c.json(settingsJson(await currentAccount(c.var, c.var.session.accountId)), 200);
  },
);

/**
 * PATCH /v1/console/settings: body `{content_logging: {enabled, retention_days?}}`. On: decide bodies and
 * Decisions are kept 1–30 days (default 7); off: nothing is kept and what was kept is deleted at once.
 */
export const updateSettings = endpoint(
  {
    method: "patch",
    path: "/v1/console/settings",
    operationId: "updateAccountSettings",
    summary: "Turn opt-in content logging on or off",
    auth: "session+csrf",
    responses: { 200: jsonResponse("The settings.", SettingsObject) },
    errors: BODY_ERRORS,
  },
  async function updateSettingsHandler(c) {
    const body = await readJsonObject(c, { allowed: ["content_logging"], required: ["content_logging"] });
    const cl = body.content_logging;
    if (cl === null || typeof cl !== "object" || Array.isArray(cl))
      throw new ApiError("invalid_type", {
        param: "content_logging",
        message: "`content_logging` must be an object.",
      });
    const log = cl as Record<string, unknown>;
    const unknown = Object.keys(log).find((k) => k !== "enabled" && k !== "retention_days");
    if (unknown) throw new ApiError("unknown_field", { param: `content_logging.${unknown}` });
    if (!("enabled" in log)) throw new ApiError("missing_field", { param: "content_logging.enabled" });
    if (typeof log.enabled !== "boolean")
      throw new ApiError("invalid_type", {
        param: "content_logging.enabled",
        message: "`enabled` must be a boolean.",
      });
    let days: number | null = null;
    if (log.enabled) {
      days =
        log.retention_days === undefined
          ? 7
          : intField(log, "retention_days", 1, 30, "content_logging.retention_days");
    }
    const accountId = c.var.session.accountId;
    const saved = await orMaintenance("accounts", async () => {
      const row = await setContentLogDays(c.var.db, accountId, days);
      if (days === null) await deleteAccountContentLogs(c.var.db, accountId);
      return row;
    });
    return c.json(settingsJson(saved ?? (await currentAccount(c.var, accountId))), 200);
  },
);
