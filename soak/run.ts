import { writeFileSync } from "node:fs";
import { seedSoakAccounts } from "./accounts";
import { batchResults, type SoakBatch, ticketLines, uploadBatch, waitForBatch } from "./batch-scenario";
import { type CheckResult, checkAccounting } from "./check";
import { closeClient } from "./client";
import { signUpConsoleAccount, stripeTopUp } from "./console-account";
import { FaultInjector } from "./faults";
import { renderReport, type SoakSummary, summarise } from "./report";
import { startSoakStack } from "./stack";
import { type Outcome, runTraffic } from "./traffic";

export interface SoakOptions {
  requests: number;
  concurrency: number;
  seed: number;
  /** Lines of the batch the `rich` account uploads as the traffic starts (default 60; 0: none). */
  batchLines?: number;
  /** A real PostgreSQL instead of PGlite (default: SOAK_DATABASE_URL, else PGlite). */
  databaseUrl?: string;
  log?: (line: string) => void;
}

export interface SoakResult {
  outcomes: Outcome[];
  summary: SoakSummary;
  check: CheckResult;
  report: string;
}

/** The soak batch's model: the smallest real one, so its lines cost the run little time. */
const BATCH_MODEL = "svc-1.4.0";
/** How long the run waits for its batch after the traffic (its runner may be backing off after a fault). */
const BATCH_WAIT_MS = 180_000;

/** Starts the stack, drives the traffic with every fault once, checks the accounting, stops the stack. */
export async function runSoak(opts: SoakOptions): Promise<SoakResult> {
  const log = opts.log ?? (() => {});
  const stack = await startSoakStack(log, opts.databaseUrl);
  try {
    const accounts = await seedSoakAccounts(
      { url: stack.databaseUrl, wsProxy: stack.neonWsProxy },
      stack.baseUrl,
      stack.adminToken,
    );
    const idpUrl = stack.stack.console?.idpUrl;
    if (!idpUrl) throw new Error("the stack runs no identity provider fake");
    // An account made in the console, funded through Stripe Checkout (the local Stripe's pay page).
    const shop = await signUpConsoleAccount(stack.baseUrl, idpUrl, "console");
    await stripeTopUp(stack.baseUrl, shop, 1_000, "soak-open");
    accounts.push(shop.account);
    const injector = new FaultInjector(stack.faults, opts.requests, log);
    // A live batch on a small model, uploaded as the traffic starts: its lines run at batch priority through
    // the faults below, and their charges are in the money check.
    const batchLines = opts.batchLines ?? 60;
    const rich = accounts.find((a) => a.name === "rich");
    const lines = ticketLines(batchLines, BATCH_MODEL, "soak");
    const batchSecret = rich?.live[0] ?? "";
    const uploaded =
      batchLines > 0 && rich ? await uploadBatch(stack.baseUrl, batchSecret, lines.jsonl) : undefined;
    const uploadedAt = Date.now();
    if (uploaded) log(`soak: batch ${uploaded.id} of ${batchLines} lines uploaded (${rich?.name})`);
    const step = Math.max(1, Math.floor(opts.requests / 20));
    const t0 = Date.now();
    const outcomes = await runTraffic({
      baseUrl: stack.baseUrl,
      adminToken: stack.adminToken,
      accounts,
      requests: opts.requests,
      concurrency: opts.concurrency,
      seed: opts.seed,
      activeFaults: injector.activeFaults,
      gate: injector.gate,
      topUpEvery: Math.max(50, Math.floor(opts.requests / 8)),
      credits: [{ at: 0.5, run: () => stripeTopUp(stack.baseUrl, shop, 1_500, "soak-mid") }],
      progress: (done) => {
        if (done % step === 0) log(`soak: ${done} answered (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
      },
    });
    const wallMs = Date.now() - t0;
    await injector.settle();
    const batches: SoakBatch[] = [];
    if (uploaded && rich) {
      log("soak: traffic done; waiting for the batch");
      const b = await waitForBatch(stack.baseUrl, batchSecret, uploaded.id, BATCH_WAIT_MS);
      batches.push({
        account: rich.name,
        accountId: rich.accountId,
        id: b.id,
        customIds: lines.customIds,
        status: b.status,
        counts: b.counts,
        charge: b.usage.charge_micro_cents,
        wallMs: Date.now() - uploadedAt,
        results: await batchResults(stack.baseUrl, batchSecret, b.id),
      });
      log(
        `soak: batch ${b.status} ${JSON.stringify(b.counts)} ${((Date.now() - uploadedAt) / 1000).toFixed(0)} s after its upload`,
      );
    }
    log("soak: checking the accounting");
    const check = await checkAccounting({
      baseUrl: stack.baseUrl,
      adminToken: stack.adminToken,
      databaseUrl: stack.databaseUrl,
      neonWsProxy: stack.neonWsProxy,
      accounts,
      outcomes,
      batches,
    });
    const summary = summarise(outcomes, injector.events, wallMs, batches);
    return { outcomes, summary, check, report: renderReport(summary, check, opts) };
  } finally {
    stack.faults.resumePostgres();
    await stack.stop();
    await closeClient();
  }
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const opts: SoakOptions = {
    requests: arg("requests", 10_000),
    concurrency: arg("concurrency", 16),
    seed: arg("seed", 20261123),
    batchLines: process.argv.includes("--batch-lines")
      ? Number(process.argv[process.argv.indexOf("--batch-lines") + 1])
      : 60,
    log: (line) => console.log(line),
  };
  runSoak(opts).then(
    (r) => {
      console.log(`\n${r.report}`);
      const out = process.argv.includes("--out")
        ? process.argv[process.argv.indexOf("--out") + 1]
        : undefined;
      if (out) writeFileSync(out, `${r.report}\n`);
      const dump = process.argv.includes("--outcomes")
        ? process.argv[process.argv.indexOf("--outcomes") + 1]
        : undefined;
      if (dump) writeFileSync(dump, JSON.stringify({ outcomes: r.outcomes, faults: r.summary.faults }));
      process.exit(r.check.ok ? 0 : 1);
    },
    (e) => {
      console.error(e);
      process.exit(2);
    },
  );
}
