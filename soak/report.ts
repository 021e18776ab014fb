import { cpus } from "node:os";
import type { SoakBatch } from "./batch-scenario";
import type { CheckResult } from "./check";
import type { FaultEvent } from "./faults";
import type { Outcome } from "./traffic";

export interface SoakSummary {
  requests: number;
  wallMs: number;
  throughput: number;
  p50: number;
  p99: number;
  p50ok: number;
  p99ok: number;
  mix: Array<{ answer: string; count: number }>;
  scenarios: Record<string, number>;
  faults: Array<FaultEvent & { requests: number }>;
  servedBy: Record<string, number>;
  /** Idempotency keys answered as an original more than once (allowed only across the Redis restart). */
  keysRunTwice: number;
  /** Answers refusing a valid key (every soak key is valid): 401, or 503 `maintenance` (key store unreachable). */
  validKeysRefused: Array<{ seq: number; status: number; code: string; faults: string[] }>;
  /** The batch uploaded as the traffic started: its lines, status and time from upload to finished. */
  batches: Array<{
    account: string;
    status: string;
    total: number;
    done: number;
    failed: number;
    wallMs: number;
    charge: number;
  }>;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

export function summarise(
  outcomes: Outcome[],
  faults: FaultEvent[],
  wallMs: number,
  batches: SoakBatch[] = [],
): SoakSummary {
  const all = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const ok = outcomes
    .filter((o) => o.status === 200)
    .map((o) => o.ms)
    .sort((a, b) => a - b);
  const mix = new Map<string, number>();
  const scenarios: Record<string, number> = {};
  const servedBy: Record<string, number> = {};
  for (const o of outcomes) {
    const answer =
      o.status === 200 ? (o.replayed ? "200 replay" : `200 ${o.mode}`) : `${o.status} ${o.code ?? "?"}`;
    mix.set(answer, (mix.get(answer) ?? 0) + 1);
    scenarios[o.scenario] = (scenarios[o.scenario] ?? 0) + 1;
    if (o.status === 200 && !o.replayed) servedBy[o.servedBy ?? "?"] = (servedBy[o.servedBy ?? "?"] ?? 0) + 1;
  }
  const originals = new Map<string, number>();
  for (const o of outcomes)
    if (o.status === 200 && !o.replayed && o.idempotencyKey)
      originals.set(o.idempotencyKey, (originals.get(o.idempotencyKey) ?? 0) + 1);
  return {
    batches: batches.map((b) => ({
      account: b.account,
      status: b.status,
      ...b.counts,
      wallMs: b.wallMs,
      charge: b.charge,
    })),
    keysRunTwice: [...originals.values()].filter((c) => c > 1).length,
    validKeysRefused: outcomes
      .filter((o) => o.status === 401 || o.code === "maintenance")
      .map((o) => ({ seq: o.seq, status: o.status, code: o.code ?? "", faults: o.faults })),
    requests: outcomes.length,
    wallMs,
    throughput: outcomes.length / (wallMs / 1000),
    p50: quantile(all, 0.5),
    p99: quantile(all, 0.99),
    p50ok: quantile(ok, 0.5),
    p99ok: quantile(ok, 0.99),
    mix: [...mix].map(([answer, count]) => ({ answer, count })).sort((a, b) => b.count - a.count),
    scenarios,
    faults: [...faults]
      .sort((a, b) => a.on - b.on)
      .map((f) => ({
        ...f,
        requests: outcomes.filter((o) => o.faults.includes(f.name)).length,
      })),
    servedBy,
  };
}

const n = (x: number) => x.toLocaleString("en-US");
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** The run as Markdown (for docs/reliability.md and the terminal). */
export function renderReport(
  s: SoakSummary,
  check: CheckResult,
  meta: { seed: number; concurrency: number },
): string {
  const lines = [
    `Run of ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC: ${n(s.requests)} requests, seed ${meta.seed}, ` +
      `${meta.concurrency} clients; ${cpus().length} vCPUs (${cpus()[0]?.model ?? "?"}), node ${process.version}.`,
    "",
    `- Wall time ${(s.wallMs / 1000).toFixed(1)} s, throughput ${s.throughput.toFixed(1)} requests/s.`,
    `- Latency, every answer: p50 ${ms(s.p50)}, p99 ${ms(s.p99)}; 200 answers only: p50 ${ms(s.p50ok)}, p99 ${ms(s.p99ok)}.`,
    `- Served (200 originals): ${Object.entries(s.servedBy)
      .map(([k, v]) => `${k} ${n(v)}`)
      .join(", ")}.`,
    `- Idempotency keys answered as an original twice (a retry after the Redis restart runs again): ${s.keysRunTwice}.`,
    `- Valid keys refused at authentication: ${s.validKeysRefused.length}` +
      (s.validKeysRefused.length
        ? ` (${s.validKeysRefused
            .slice(0, 10)
            .map((r) => `#${r.seq} ${r.status} ${r.code} during [${r.faults.join(", ")}]`)
            .join("; ")})`
        : "") +
      ".",
    `- Scenarios (requests): ${Object.entries(s.scenarios)
      .map(([k, v]) => `${k} ${n(v)}`)
      .join(", ")}.`,
    ...s.batches.map(
      (b) =>
        `- Batch (${b.account}, live): ${b.status}, ${n(b.done)} of ${n(b.total)} lines answered, ${n(b.failed)} failed, ` +
        `${(b.wallMs / 1000).toFixed(0)} s from upload to finished; its ${n(b.charge)} micro-cents are in the account's charges.`,
    ),
    `- Accounting: ${check.ok ? "**every check passed**" : `**${check.failures.length} failures**`}; ` +
      `${n(check.journalRows)} journal rows (ledger = Postgres), ${n(check.usageEvents)} usage events, ` +
      `${n(check.rollupGroups)} roll-up rows equal to the events' sums.`,
    "",
    "| fault | on for | requests sent while on |",
    "| --- | ---: | ---: |",
    ...s.faults.map((f) => `| ${f.name} | ${((f.off - f.on) / 1000).toFixed(1)} s | ${n(f.requests)} |`),
    "",
    "| account | credits | charged (200 originals + batch lines) | expected balance | ledger | Postgres journal |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...check.accounts.map(
      (a) =>
        `| ${a.name} | ${n(a.credits)} | ${n(a.charged)} | ${n(a.expected)} | ${n(a.ledgerBalance)} | ${n(a.postgresBalance)} |`,
    ),
    "",
    "| answer | count |",
    "| --- | ---: |",
    ...s.mix.map((m) => `| ${m.answer} | ${n(m.count)} |`),
  ];
  if (!check.ok) lines.push("", "Failures:", ...check.failures.map((f) => `- ${f}`));
  if (check.warnings.length) lines.push("", "Warnings (not money):", ...check.warnings.map((w) => `- ${w}`));
  return lines.join("\n");
}
