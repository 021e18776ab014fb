import type { Context } from "hono";
import { canonicalJson } from "../../schema/canonical-json";
import type { JsonValue } from "../../schema/json";
import type { AppEnv } from "../context/app-env";
import { inBackground } from "../context/background";
import { logEvent } from "../observability/log";
import { insertContentLog } from "../stores/content-logs";
import type { KeyRecord } from "../stores/keys";

/**
 * Opt-in content logging: when the caller's account turned it on, the decide body and the Decision are kept in
 * Postgres `content_logs` for the account's retention (1–30 days), written after the response. Off by default.
 */
export function logContentInBackground(
  c: Context<AppEnv>,
  key: KeyRecord,
  body: JsonValue,
  decisionJson: string,
): void {
  const days = key.account.contentLogDays;
  if (!days) return;
  const write = insertContentLog(c.get("db"), {
    requestId: c.get("requestId"),
    accountId: key.accountId,
    keyId: key.id.startsWith("key_") ? key.id : null,
    request: canonicalJson(body),
    decision: decisionJson,
    retentionDays: days,
  }).catch((err) =>
    logEvent("error", "content_log_not_written", { error: err instanceof Error ? err.name : "error" }),
  );
  inBackground(c, write);
}
