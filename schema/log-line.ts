/**
 * The structured log of the edge and the GPU worker (issue 43): every line is one JSON object with a level and an
 * event name, so Workers Logs / Logpush (and locally `<data dir>/logs/edge.jsonl` and `gpu.jsonl`) can be queried
 * by field. Never pass a state, a question, a secret or a cookie in `fields`.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** Writes one line `{"level","event","at",...fields}`. */
export function logEvent(level: LogLevel, event: string, fields: LogFields = {}): void {
  const line = JSON.stringify({ level, event, at: new Date().toISOString(), ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** An error's message for a log field (never its stack, which may quote request content). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
