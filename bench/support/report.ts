import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";

/** The load average (1, 5, 15 min), as a benchmark row states it. */
export const loadAverage = (digits = 2) =>
  loadavg()
    .map((x) => x.toFixed(digits))
    .join(", ");

/** The p-quantile of `xs` by nearest rank (NaN when empty). */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p + 0.5))] ?? Number.NaN;
}

/** Puts `section` first under `head` in docs/benchmarks.md (newest run on top), adding the heading if new. */
export function prependToBenchmarks(head: string, section: string): void {
  const doc = readFileSync("docs/benchmarks.md", "utf8");
  writeFileSync(
    "docs/benchmarks.md",
    doc.includes(head)
      ? doc.replace(head, `${head}\n\n${section}`)
      : `${doc.trimEnd()}\n\n${head}\n\n${section}`,
  );
}
