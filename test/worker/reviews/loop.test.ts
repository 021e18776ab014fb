import { describe, expect, it } from "vitest";
import { closeReviewLoops } from "../../../workers/reviews/loop";
import { buildServices } from "../../../workers/services";
import { insertDoneEvaluation, underConfidentChecks } from "../../support/calibrations";
import { expectError } from "../../support/worker-http";
import { account, api, createRule, decide, env, q, waitForReviews } from "./support";

/** The rule's loop pointed at a done evaluation of 200 under-confident labels, then closed as the runner does. */
async function closedLoop(a: Awaited<ReturnType<typeof account>>, ruleId: string) {
  const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(200));
  await q("UPDATE review_rules SET loop_status = 'evaluating', loop_evaluation = $2 WHERE id = $1", [
    ruleId,
    evaluation,
  ]);
  const s = buildServices(env);
  await closeReviewLoops({ db: s.db, limits: s.limits, calibrations: s.calibrations }, a.accountId);
  return (await (await api("GET", `/v1/review-rules/${ruleId}`, a.live)).json()) as Record<string, any>;
}

describe("issue 51: closing the loop (an evaluation of the labels, then a calibration)", () => {
  it("POST /v1/review-rules/{id}/evaluations → 201 an ordinary evaluation of the labelled items on the current version (30 of each answer)", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    for (let i = 0; i < 60; i++) await decide(a.live, 0.6, `ticket ${i}`);
    const items = await waitForReviews(a.live, rule.id, 60);
    for (const [i, item] of items.entries())
      expect(
        (await api("POST", `/v1/reviews/${item.id}/label`, a.live, { label: i % 2 === 0 })).res.status,
      ).toBe(200);
    const made = await api("POST", `/v1/review-rules/${rule.id}/evaluations`, a.live);
    expect(made.res.status, await made.res.clone().text()).toBe(201);
    const evaluation = await made.json();
    expect(evaluation).toMatchObject({ object: "evaluation", model: "svc-1.5.1", progress: { total: 60 } });
    // Its items as the decides had them, expecting their labels (an evaluation's items are read with a test key).
    const rows = (await q(
      "SELECT request, expected FROM evaluation_items WHERE evaluation_id = $1 ORDER BY idx",
      [evaluation.id],
    )) as unknown as { request: string; expected: string }[];
    const first = Array.isArray(rows) ? rows[0]! : (rows as any).rows[0];
    expect(JSON.parse(first.request)).toMatchObject({ questions: { refund: { type: "check" } } });
    expect(JSON.parse(first.expected)).toEqual({ refund: expect.any(Boolean) });
    const after = await (await api("GET", `/v1/review-rules/${rule.id}`, a.live)).json();
    expect(after.loop).toMatchObject({ status: "evaluating", evaluation: evaluation.id, calibration: null });
  }, 120_000);

  it("once the evaluation is done a calibration is fitted and stored, not applied: decides keep their answer until POST /v1/calibrations/{id}/activate", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    const after = await closedLoop(a, rule.id);
    expect(after.loop.status).toBe("fitted");
    expect(after.loop.calibration).toMatch(/^calib_/);
    const cal = await (await api("GET", `/v1/calibrations/${after.loop.calibration}`, a.live)).json();
    expect(cal).toMatchObject({ active: false, mode: "live", model: "svc-1.5.1", question_id: "refund" });
    const activated = await api("POST", `/v1/calibrations/${cal.id}/activate`, a.live);
    expect((await activated.json()).active).toBe(true);
    const listed = await (await api("GET", "/v1/calibrations", a.live)).json();
    expect(listed.data.find((c: any) => c.id === cal.id).active).toBe(true);
    await expectError(
      (await api("POST", "/v1/calibrations/calib_01JD0000000000000000000000/activate", a.live)).res,
      404,
      "calibration_not_found",
      "id",
    );
  });

  it("auto_apply: the fit is applied at once when it beats the version's own answer on held-out NLL (no calibration was active)", async () => {
    const a = await account();
    const rule = await createRule(a.live, { auto_apply: true });
    const after = await closedLoop(a, rule.id);
    expect(after.loop.status).toBe("applied");
    const cal = await (await api("GET", `/v1/calibrations/${after.loop.calibration}`, a.live)).json();
    expect(cal.active).toBe(true);
    expect(cal.metrics.after.nll).toBeLessThan(cal.metrics.before.nll);
  });

  it("auto_apply does not replace an active calibration the new fit does not beat on the same held-out labels", async () => {
    const a = await account();
    const rule = await createRule(a.live, { auto_apply: true });
    const first = await closedLoop(a, rule.id);
    expect(first.loop.status).toBe("applied");
    // The same labels again: the active calibration's NLL on them is as low as the new fit's cross-validated one.
    const second = await closedLoop(a, rule.id);
    expect(second.loop.status).toBe("fitted");
    const active = await (await api("GET", `/v1/calibrations/${first.loop.calibration}`, a.live)).json();
    expect(active.active).toBe(true);
  });

  it("a loop whose evaluation failed says so on the rule", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(10), {
      status: "cancelled",
    });
    await q("UPDATE review_rules SET loop_status = 'evaluating', loop_evaluation = $2 WHERE id = $1", [
      rule.id,
      evaluation,
    ]);
    const s = buildServices(env);
    await closeReviewLoops({ db: s.db, limits: s.limits, calibrations: s.calibrations }, a.accountId);
    const after = await (await api("GET", `/v1/review-rules/${rule.id}`, a.live)).json();
    expect(after.loop).toMatchObject({ status: "failed", error: { code: "evaluation_cancelled" } });
  });
});
