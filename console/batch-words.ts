/** How the Batches page words an upload's error (no DOM: the unit tier tests it). */

/**
 * Which line an upload error is about, counted from 1 as an editor counts: the API's `param` is `lines.<n>` with
 * `n` from 0, then the path inside the line (`lines.3.body.questions.q` → line 4, `body.questions.q`). Null for
 * an error about the whole upload.
 */
export function lineOf(param: string | undefined): { line: number; path: string | null } | null {
  const m = param === undefined ? null : /^lines\.(\d+)(?:[./](.+))?$/.exec(param);
  if (!m) return null;
  return { line: Number(m[1]) + 1, path: m[2] ?? null };
}

/** `Line 4: <message> (body.questions.q) [code]` for an error about one line; null for one about the whole file. */
export function lineErrorText(e: { code: string; message: string; param?: string }): string | null {
  const at = lineOf(e.param);
  if (!at) return null;
  // The API's message may already name the line (counted from 0): it is said once, counted from 1.
  const message = e.message.replace(/^Line \d+: /, "");
  return `Line ${at.line}: ${message}${at.path ? ` (${at.path})` : ""} [${e.code}]`;
}

/** What a webhook endpoint is called with (schema/batches.ts: WEBHOOK_EVENT_TYPES). */
export const WEBHOOK_EVENTS = [
  "batch.completed",
  "batch.failed",
  "batch.expired",
  "batch.cancelled",
  "question.drifted",
  "calibration.ready",
  "calibration.failed",
] as const;
