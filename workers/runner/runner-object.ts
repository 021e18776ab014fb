import { DurableObject } from "cloudflare:workers";
import { type BatchMemory, type BatchRunnerDeps, runBatchSlice } from "../batches/runner";
import { deliverDueEvents } from "../batches/webhooks";
import { type BackgroundFitDeps, runCalibrationSlice } from "../calibrations/background";
import type { NextRun } from "../clients/runner";
import type { Env } from "../env";
import { type RunnerDeps, type RunnerMemory, runSlice } from "../evaluations/runner";
import { TEST_DAILY_QUOTA } from "../limits/key-limits";
import { errorText, logEvent } from "../observability/log";
import { closeReviewLoops } from "../reviews/loop";
import type { ReviewDeps } from "../reviews/rules";
import { buildServices } from "../services";
import { EvaluationQuota } from "../stores/evaluation-quota";
import { redisAccess } from "../stores/redis";
import { nextDeliveryAt } from "../stores/webhooks";

/** What the runner remembers between alarms, per kind of work. */
interface Memory {
  evaluations: RunnerMemory;
  batches: BatchMemory;
  failures: number;
}

const earliest = (a: NextRun, b: NextRun): NextRun => (a === null ? b : b === null ? a : Math.min(a, b));

/**
 * One per account (named by the account id): THE background runner of the account — its evaluations, its batches,
 * its webhook events, its large calibration fits and its review loops —
 * driven by its alarm, never inside the request that created the work. Evaluations and
 * batches run side by side in each alarm (each in its own slice); its storage holds only the account id and
 * failure counts; every item's and line's state is in Postgres, so a restart (of the Worker, the object or the
 * whole stack) loses nothing: the next alarm, a cron tick or a read of a stalled run picks it up.
 */
export class EvaluationRunner extends DurableObject<Env> {
  private deps: (RunnerDeps & BatchRunnerDeps & BackgroundFitDeps) | null = null;
  private reviewDeps: ReviewDeps | null = null;

  private runnerDeps(): RunnerDeps & BatchRunnerDeps & BackgroundFitDeps {
    if (!this.deps) {
      const services = buildServices(this.env);
      this.reviewDeps = { db: services.db, limits: services.limits, calibrations: services.calibrations };
      this.deps = {
        db: services.db,
        env: this.env,
        engine: services.engine,
        ledger: services.ledger,
        refundIntents: services.refundIntents,
        calibrations: services.calibrations,
        limits: services.limits,
        bucket: this.env.BATCHES,
        metrics: this.env.METRICS,
        quota: new EvaluationQuota(redisAccess(this.env), TEST_DAILY_QUOTA),
      };
    }
    return this.deps;
  }

  /** Makes sure the account's runner runs soon (new, cancelled or stalled work). */
  async kick(accountId: string): Promise<void> {
    await this.ctx.storage.put("account", accountId);
    const at = await this.ctx.storage.getAlarm();
    if (at === null || at > Date.now() + 1_000) await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const accountId = await this.ctx.storage.get<string>("account");
    if (!accountId) return;
    const stored = await this.ctx.storage.get<Partial<Memory> & RunnerMemory>("memory");
    const memory: Memory = {
      evaluations: stored?.evaluations ?? { failures: stored?.failures ?? 0, faults: stored?.faults ?? 0 },
      batches: stored?.batches ?? { failures: 0 },
      failures: 0,
    };
    const deps = this.runnerDeps();
    const [evaluations, batches, events, calibrations] = await Promise.all([
      this.guard(accountId, "evaluations", async () => {
        const next = await runSlice(deps, accountId, memory.evaluations);
        // A review rule's evaluation that just finished gets its calibration (issue 51).
        if (this.reviewDeps) await closeReviewLoops(this.reviewDeps, accountId);
        return next;
      }),
      this.guard(accountId, "batches", () => runBatchSlice(deps, accountId, memory.batches)),
      this.guard(accountId, "webhooks", async () => {
        if (this.env.CONSOLE_SECRET)
          await deliverDueEvents({ db: deps.db, serverSecret: this.env.CONSOLE_SECRET }, accountId);
        return nextDeliveryAt(deps.db, accountId);
      }),
      this.guard(accountId, "calibrations", () => runCalibrationSlice(deps, accountId)),
    ]);
    await this.ctx.storage.put("memory", memory);
    const next = earliest(earliest(earliest(evaluations, batches), events), calibrations);
    if (next !== null) await this.ctx.storage.setAlarm(Math.max(next, Date.now()));
  }

  /** One kind of work; a store outage tries again soon (the cron tick is the safety net if this object is lost). */
  private async guard(accountId: string, work: string, run: () => Promise<NextRun>): Promise<NextRun> {
    try {
      return await run();
    } catch (err) {
      logEvent("error", "runner_failed", { account_id: accountId, work, error: errorText(err) });
      return Date.now() + 15_000;
    }
  }
}
