import { SettingsObject } from "../../../../schema/console";
import { currentAccount } from "../../../accounts/current-account";
import { orMaintenance } from "../../../accounts/unavailable";
import { BODY_ERRORS, booleanRule, intRule, objectRule, readConsoleBody } from "../../../http/console-body";
import type { AccountRow } from "../../../stores/accounts";
import { setContentLogDays } from "../../../stores/accounts";
import { deleteAccountContentLogs } from "../../../stores/content-logs";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

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
    const { fields } = await readConsoleBody(c, {
      content_logging: objectRule("content_logging", {
        enabled: booleanRule(),
        retention_days: intRule(1, 30, false),
      }),
    });
    const log = fields.content_logging as { enabled: boolean; retention_days?: number };
    const days = log.enabled ? (log.retention_days ?? 7) : null;
    const accountId = c.var.session.accountId;
    const saved = await orMaintenance("accounts", async () => {
      const row = await setContentLogDays(c.var.db, accountId, days);
      if (days === null) await deleteAccountContentLogs(c.var.db, accountId);
      return row;
    });
    return c.json(settingsJson(saved ?? (await currentAccount(c.var, accountId))), 200);
  },
);
