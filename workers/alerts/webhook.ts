import { errorText, logEvent } from "../observability/log";
import type { Incident, IncidentStore } from "../stores/alert-incidents";
import { ALERTS, type AlertName } from "./definitions";

/** Bound on one webhook POST; a slow receiver is retried on the next tick. */
export const WEBHOOK_TIMEOUT_MS = 5_000;

export type AlertState = "firing" | "resolved";

/** The Slack-compatible body: `text` (what every receiver shows) and one section block. */
export function alertMessage(
  incident: Incident,
  state: AlertState,
  environment: string,
): {
  text: string;
  blocks: unknown[];
} {
  const title = ALERTS[incident.alert as AlertName] ?? incident.alert;
  const head = `[${state.toUpperCase()}] ${incident.alert} (${environment}): ${incident.summary}`;
  const since = incident.openedAt === null ? "" : new Date(incident.openedAt).toISOString();
  const lines = [
    `*${state === "firing" ? ":rotating_light:" : ":white_check_mark:"} ${title}* — ${incident.summary}`,
    incident.detail && `> ${incident.detail}`,
    `key \`${incident.key}\`, opened ${since}${incident.resolvedAt ? `, resolved ${new Date(incident.resolvedAt).toISOString()}` : ""}`,
    `Runbook: docs/operations.md#${incident.alert}`,
  ].filter(Boolean);
  return { text: head, blocks: [{ type: "section", text: { type: "mrkdwn", text: lines.join("\n") } }] };
}

/** Sends one message; false (logged) when it did not arrive. No URL: the log line is the notification. */
export async function postAlert(
  url: string | undefined,
  incident: Incident,
  state: AlertState,
  environment: string,
): Promise<boolean> {
  logEvent(state === "firing" ? "error" : "info", `alert_${state}`, {
    alert: incident.alert,
    key: incident.key,
    summary: incident.summary,
  });
  if (!url) return true;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(alertMessage(incident, state, environment)),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.ok) return true;
    logEvent("warn", "alert_webhook_failed", {
      alert: incident.alert,
      key: incident.key,
      status: res.status,
    });
  } catch (err) {
    logEvent("warn", "alert_webhook_failed", {
      alert: incident.alert,
      key: incident.key,
      error: errorText(err),
    });
  }
  return false;
}

/**
 * Sends what `store` still owes: each opened incident's FIRING, then each resolved one's RESOLVED, marking
 * each as sent once it arrived. A failure stops the round (the rest are retried on the next tick, in order).
 */
export async function notifyPending(
  store: IncidentStore,
  url: string | undefined,
  environment: string,
  now: number,
): Promise<number> {
  let sent = 0;
  for (const pending of await store.unsent()) {
    let i = pending;
    if (i.openSentAt === null) {
      if (!(await postAlert(url, i, "firing", environment))) return sent;
      i = await store.save({ ...i, openSentAt: now });
      sent++;
    }
    if (i.resolvedAt !== null && i.resolveSentAt === null) {
      if (!(await postAlert(url, i, "resolved", environment))) return sent;
      await store.save({ ...i, resolveSentAt: now });
      sent++;
    }
  }
  return sent;
}
