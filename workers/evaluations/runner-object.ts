import { DurableObject } from "cloudflare:workers";
import { Engine } from "../clients/engine";
import type { Env } from "../env";
import { TEST_DAILY_QUOTA } from "../limits/key-limits";
import { errorText, logEvent } from "../observability/log";
import { database } from "../stores/db";
import { EvaluationQuota } from "../stores/evaluation-quota";
import { redisAccess } from "../stores/redis";
import { type RunnerDeps, type RunnerMemory, runSlice } from "./runner";

/**
 * One per account (named by the account id): runs the account's evaluations in the background, driven by its
 * alarm, never inside the request that created them. Its storage holds only the account id and a failure
 * count; every item's state is in Postgres, so a restart (of the Worker, the object or the whole stack) loses
 * nothing: the next alarm, a cron tick or a read of a stalled run picks it up where the database says.
 */
export class EvaluationRunner extends DurableObject<Env> {
  private deps: RunnerDeps | null = null;

  private runnerDeps(): RunnerDeps {
    this.deps ??= {
      db: database(this.env),
      env: this.env,
      engine: Engine.fromEnv(this.env),
      quota: new EvaluationQuota(redisAccess(this.env), TEST_DAILY_QUOTA),
    };
    return this.deps;
  }

  /** Makes sure the account's runner runs soon (a new, cancelled or stalled evaluation). */
  async kick(accountId: string): Promise<void> {
    await this.ctx.storage.put("account", accountId);
    const at = await this.ctx.storage.getAlarm();
    if (at === null || at > Date.now() + 1_000) await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const accountId = await this.ctx.storage.get<string>("account");
    if (!accountId) return;
    const memory = (await this.ctx.storage.get<RunnerMemory>("memory")) ?? { failures: 0, faults: 0 };
    let next: number | null;
    try {
      next = await runSlice(this.runnerDeps(), accountId, memory);
    } catch (err) {
      // A store outage: try again soon (the cron tick is the safety net if this object is lost).
      logEvent("error", "evaluation_runner_failed", { account_id: accountId, error: errorText(err) });
      memory.failures++;
      next = Date.now() + Math.min(60_000, 2_000 * 2 ** Math.min(memory.failures, 5));
    }
    await this.ctx.storage.put("memory", memory);
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }
}
