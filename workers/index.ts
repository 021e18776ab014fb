import { sweepConsoleData } from "./accounts/retention-sweep";
import { runAlertTick } from "./alerts/tick";
import { app } from "./app";
import { sweepBatches } from "./batches/sweep";
import { sweepRefundIntents } from "./billing/refund-sweep";
import { sweepInvitations } from "./billing/seat-service";
import { sweepCalibrations } from "./calibrations/sweep";
import { httpEmailSender } from "./clients/email";
import type { Env } from "./env";
import { sweepEvaluations } from "./evaluations/sweep";
import { ledgerStub } from "./ledger/stub";
import { logEvent } from "./observability/log";
import { sweepQuestionDrift } from "./questions/sweep";
import { sweepReviews } from "./reviews/sweep";
import { database } from "./stores/db";
import { pruneUsageEvents, repairRecentUsageRollups } from "./stores/usage-rollups";

export { AccountLedger } from "./ledger/account-ledger";
export { EvaluationRunner } from "./runner/runner-object";

/** Cron triggers (wrangler.toml `[triggers]`) and what each runs. */
export const CRONS = {
  /**
   * Refunds recorded in Postgres because the ledger was unreachable; evaluations and batches kicked, expired ones
   * deleted.
   */
  refunds: "*/5 * * * *",
  /**
   * Recomputes the last hours' usage roll-ups from the raw events (a safety net; writes are exactly once); evaluates
   * the drift of every question asked this week (issue 52).
   */
  usageRepair: "7 * * * *",
  /** Deletes raw usage events past their retention (the roll-ups stay). */
  usagePrune: "23 3 * * *",
  /** Operator alerts and the canary (docs/operations.md). */
  alerts: "* * * * *",
} as const;

export default {
  fetch: app.fetch,
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    if (controller.cron === CRONS.alerts) ctx.waitUntil(runAlertTick(env, ctx));
    else if (controller.cron === CRONS.usageRepair) {
      ctx.waitUntil(repairRecentUsageRollups(env));
      if (env.DATABASE_URL) ctx.waitUntil(sweepQuestionDrift(env));
    } else if (controller.cron === CRONS.usagePrune) ctx.waitUntil(pruneUsageEvents(env));
    else {
      ctx.waitUntil(sweepRefundIntents(env, (accountId) => ledgerStub(env, accountId)));
      ctx.waitUntil(
        sweepConsoleData(env).catch((e) =>
          logEvent("error", "console_sweep_failed", { error: e instanceof Error ? e.name : String(e) }),
        ),
      );
      if (env.DATABASE_URL) ctx.waitUntil(sweepEvaluations(env));
      if (env.DATABASE_URL) ctx.waitUntil(sweepCalibrations(env));
      if (env.DATABASE_URL) ctx.waitUntil(sweepReviews(env));
      if (env.DATABASE_URL) ctx.waitUntil(sweepBatches(env));
      if (env.DATABASE_URL)
        ctx.waitUntil(sweepInvitations({ db: database(env), email: httpEmailSender(env) }));
    }
  },
} satisfies ExportedHandler<Env>;
