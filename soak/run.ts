import { writeFileSync } from "node:fs";
import { seedSoakAccounts } from "./accounts";
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
    log("soak: traffic done; checking the accounting");
    const check = await checkAccounting({
      baseUrl: stack.baseUrl,
      adminToken: stack.adminToken,
      databaseUrl: stack.databaseUrl,
      neonWsProxy: stack.neonWsProxy,
      accounts,
      outcomes,
    });
    const summary = summarise(outcomes, injector.events, wallMs);
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
