/** UTC calendar periods the ledger and the limiter count in. */

/** `YYYY-MM` of the UTC month containing `ms`. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** `YYYY-MM-DD` of the Monday (00:00 UTC) starting the ISO week containing `ms`. */
export function weekOf(ms: number): string {
  const d = new Date(ms);
  const dayFromMonday = (d.getUTCDay() + 6) % 7;
  const monday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - dayFromMonday);
  return new Date(monday).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` of the UTC day containing `ms`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Whole seconds from `ms` to the next 00:00 UTC (at least 1). */
export function secondsToUtcMidnight(ms: number): number {
  const d = new Date(ms);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - ms) / 1000));
}

/** ms since epoch of the next Monday 00:00 UTC after `ms` (when the week's plan allowance resets). */
export function nextWeekStart(ms: number): number {
  return Date.parse(`${weekOf(ms)}T00:00:00Z`) + 7 * 24 * 3600 * 1000;
}
