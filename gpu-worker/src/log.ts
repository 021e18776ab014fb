/**
 * The GPU worker's log: one JSON object a line with a level and an event name, like the edge's
 * (`workers/observability/log.ts`); `npm start` appends them to `<data dir>/logs/gpu.jsonl`. Never a state or
 * a question in `fields`.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export function logEvent(
  level: LogLevel,
  event: string,
  fields: Record<string, string | number | boolean | null | undefined> = {},
): void {
  const line = JSON.stringify({ level, event, at: new Date().toISOString(), ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** An error's message for a log field (never its stack). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
