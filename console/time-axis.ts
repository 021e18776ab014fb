/** The time axis of the console's bucket charts (usage, questions): UTC days or hours. */

/** Every n-th bucket start (a tick per bucket would crowd the axis). */
export function everyNth(xs: number[], n: number): number[] {
  return xs.filter((_, i) => i % Math.max(1, n) === 0);
}

/** A bucket start as its UTC day (`Nov 21`) or hour (`Nov 21 14:00`). */
export function bucketLabel(seconds: number, granularity: "day" | "hour"): string {
  const iso = new Date(seconds * 1000).toISOString();
  const day = new Date(seconds * 1000).toLocaleDateString("en-GB", {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
  return granularity === "day" ? day : `${day} ${iso.slice(11, 16)}`;
}

/** A bucket's width in seconds. */
export const bucketSeconds = (granularity: "day" | "hour") => (granularity === "day" ? 86_400 : 3_600);
