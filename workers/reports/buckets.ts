import type { Granularity } from "../../schema/usage";

/** Milliseconds in a UTC day (UTC has no daylight-saving shifts). */
export const DAY_MS = 86_400_000;

/** Milliseconds in an hour. */
export const HOUR_MS = 3_600_000;

/** Bucket width of a granularity. */
export function bucketWidthMs(granularity: Granularity): number {
  return granularity === "day" ? DAY_MS : HOUR_MS;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Epoch ms of 00:00 UTC on a `YYYY-MM-DD` calendar date from 1970-01-01 to 9999-12-31, or null when the
 * text is not exactly such a date (2026-02-30, 2026-1-5 and date-times are not).
 */
export function parseUtcDate(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1970 || mo < 1 || mo > 12 || d < 1) return null;
  const ms = Date.UTC(y, mo - 1, d);
  return new Date(ms).getUTCDate() === d ? ms : null;
}

/** `YYYY-MM-DD` of the UTC day starting at `ms`. */
export function formatUtcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** RFC 3339 date-time in UTC without fractional seconds, e.g. `2026-11-23T14:00:00Z`. */
export function formatUtcDateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** Start of every bucket in [startMs, endMs), in order. */
export function bucketStarts(startMs: number, endMs: number, granularity: Granularity): number[] {
  const width = bucketWidthMs(granularity);
  const out: number[] = [];
  for (let t = startMs; t < endMs; t += width) out.push(t);
  return out;
}
