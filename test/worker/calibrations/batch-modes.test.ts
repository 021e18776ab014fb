import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type BatchRunnerDeps, runBatchSlice } from "../../../workers/batches/runner";
import type { Env } from "../../../workers/env";
import { TEST_DAILY_QUOTA } from "../../../workers/limits/key-limits";
import { buildServices } from "../../../workers/services";
import { EvaluationQuota } from "../../../workers/stores/evaluation-quota";
import { redisAccess } from "../../../workers/stores/redis";
import { quietCall } from "../../support/batch-runner";
import {
  fixedCheckEngine,
  insertDoneEvaluation,
  REFUND_CHECK,
  underConfidentChecks,
} from "../../support/calibrations";
import { consoleCall } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const q = sqlQuery(env);

function runnerDeps(): BatchRunnerDeps {
  const services = buildServices(env);
  return {
    db: services.db,
    env,
    engine: fixedCheckEngine(0.7123456),
    ledger: services.ledger,
    refundIntents: services.refundIntents,
    calibrations: services.calibrations,
    limits: services.limits,
    bucket: env.BATCHES,
    quota: new EvaluationQuota(redisAccess(env), TEST_DAILY_QUOTA),
  };
}

/** Uploads one line with `secret`, runs the account's batches to the end, and returns the line's answer. */
async function batchAnswer(secret: string, accountId: string): Promise<Record<string, unknown>> {
  const body = {
    model: "svc-1.5.1",
    state: "My parcel arrived broken.",
    questions: { refund: REFUND_CHECK },
  };
  // Without the runner's kick: the account's real runner (no GPU here) would race this test's own slices.
  const up = await quietCall("POST", "/v1/batches", {
    bearer: secret,
    body: `${JSON.stringify({ custom_id: "one", body })}\n`,
    headers: { "content-type": "application/jsonl" },
  });
  expect(up.status, await up.clone().text()).toBe(201);
  const { id } = (await up.json()) as { id: string };
  for (let i = 0; i < 20; i++)
    if ((await runBatchSlice(runnerDeps(), accountId, { failures: 0 }, 20_000)) === null) break;
  const res = await consoleCall("GET", `/v1/batches/${id}/results`, { bearer: secret });
  const line = JSON.parse((await res.text()).trim()) as {
    body: { answers: { refund: Record<string, unknown> } };
  };
  return line.body.answers.refund;
}

describe("issue 50 item 1: batch lines answer with their batch's mode's calibrations", () => {
  it("a test key's calibration answers a test batch's lines, never a live batch's", async () => {
    const a = await seed({ keys: [{ mode: "live" }, { mode: "test" }] });
    const [live, test] = [a.keys[0]!.secret, a.keys[1]!.secret];
    await buildServices(env)
      .ledger(a.accountId)
      .credit({ account_id: a.accountId, payment_id: `pay_${a.accountId}`, amount_micro_cents: 10_000_000 });
    const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(200));
    const made = await consoleCall("POST", "/v1/calibrations", {
      bearer: test,
      body: { evaluation, question: "refund" },
    });
    const { id } = (await made.json()) as { id: string };
    expect((await batchAnswer(test, a.accountId)).calibration).toBe(id);
    const liveLine = await batchAnswer(live, a.accountId);
    expect(liveLine).not.toHaveProperty("calibration");
    expect(liveLine.probability).toBe(0.7123);
  });
});
