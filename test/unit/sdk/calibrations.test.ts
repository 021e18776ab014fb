import { describe, expect, expectTypeOf, it } from "vitest";
import type { Calibration, CalibrationPreview } from "../../../sdk/src/index";
import { scriptedClient } from "../../support/sdk-fake-fetch";

const ID = "calib_01JD0000000000000000000000";
const EVALUATION = "eval_01JD0000000000000000000000";
const metrics = (ece15: number, nll: number) => ({
  n: 60,
  accuracy: 0.8,
  ece15,
  ece15_noise_floor: 0.04,
  nll,
  brier: 0.15,
  auc: 0.88,
  reliability: [],
  thresholds: [{ target: 0.9, min_confidence: 0.7, coverage: 0.5 }],
});
const calibration = (active = true) => ({
  id: ID,
  object: "calibration",
  model: "svc-1.5.1",
  evaluation: EVALUATION,
  question_id: "refund",
  question: { type: "check", instructions: "Does the customer ask for a refund?" },
  method: "temperature",
  map: { temperature: 0.5, bias: [0, 0] },
  n: 60,
  metrics: { folds: 5, before: metrics(0.12, 0.52), after: metrics(0.04, 0.41) },
  active,
  created: 1,
  deactivated: active ? null : 2,
});

describe("SDK calibration methods", () => {
  it("each operation sends its method, path and body (ids encoded, DELETE included)", async () => {
    const { client, requests } = scriptedClient([{ json: calibration(), status: 201 }]);
    const body = { evaluation: EVALUATION, question: "refund" };
    await client.createCalibration(body);
    await client.previewCalibration(body);
    await client.listCalibrations({ limit: 5, starting_after: ID });
    await client.listCalibrations();
    await client.getCalibration(ID);
    await client.deleteCalibration("calib/x");
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST http://api.test/v1/calibrations",
      "POST http://api.test/v1/calibration-previews",
      `GET http://api.test/v1/calibrations?limit=5&starting_after=${ID}`,
      "GET http://api.test/v1/calibrations",
      `GET http://api.test/v1/calibrations/${ID}`,
      "DELETE http://api.test/v1/calibrations/calib%2Fx",
    ]);
    expect(requests.slice(0, 2).map((r) => JSON.parse(r.body!))).toEqual([body, body]);
    expect(requests.every((r) => r.headers.authorization === "Bearer svc_test_key")).toBe(true);
  });

  it("answers are passed through typed: the calibration, its preview, a deleted one", async () => {
    const preview = { ...calibration(false), id: null, object: "calibration_preview", deactivated: null };
    const { client } = scriptedClient([
      { json: calibration(), status: 201 },
      { json: preview },
      { json: calibration(false) },
    ]);
    const created = await client.createCalibration({ evaluation: EVALUATION, question: "refund" });
    expectTypeOf(created).toEqualTypeOf<Calibration>();
    expect([created.metrics?.before.ece15, created.metrics?.after.ece15]).toEqual([0.12, 0.04]);
    const previewed = await client.previewCalibration({ evaluation: EVALUATION, question: "refund" });
    expectTypeOf(previewed).toEqualTypeOf<CalibrationPreview>();
    expectTypeOf(previewed.id).toEqualTypeOf<null>();
    expect(previewed).toMatchObject({ id: null, object: "calibration_preview", active: false });
    expect(await client.deleteCalibration(ID)).toMatchObject({ id: ID, active: false, deactivated: 2 });
  });

  it("a create is sent again after 429, never after a 500 (it would replace the first); a preview is", async () => {
    const body = { evaluation: EVALUATION, question: "refund" };
    const limited = scriptedClient([
      { error: "requests_per_minute", type: "rate_limited", status: 429, retryAfter: 1 },
      { json: calibration(), status: 201 },
    ]);
    expect((await limited.client.createCalibration(body)).id).toBe(ID);
    expect(limited.requests).toHaveLength(2);
    const failed = scriptedClient([
      { error: "internal_error", type: "internal", status: 500 },
      { json: calibration(), status: 201 },
    ]);
    await expect(failed.client.createCalibration(body)).rejects.toMatchObject({ code: "internal_error" });
    expect(failed.requests).toHaveLength(1);
    const preview = scriptedClient([
      { error: "internal_error", type: "internal", status: 500 },
      { json: {} },
    ]);
    await preview.client.previewCalibration(body);
    expect(preview.requests).toHaveLength(2);
  });

  it("the API's calibration errors arrive with their type and code", async () => {
    const { client } = scriptedClient([{ error: "too_few_labels", type: "validation", status: 422 }]);
    const err = await client
      .createCalibration({ evaluation: EVALUATION, question: "refund" })
      .catch((e) => e);
    expect(err).toMatchObject({ type: "validation", code: "too_few_labels", status: 422 });
  });

  it("a decide's answer carries the calibration that answered it, typed as optional", async () => {
    const { client } = scriptedClient([
      {
        json: {
          answers: {
            refund: { type: "check", probability: 0.97, confidence: 0.9, abstained: false, calibration: ID },
            mood: {
              type: "pick",
              choice: "calm",
              probabilities: { calm: 1 },
              confidence: 1,
              abstained: false,
            },
          },
        },
      },
    ]);
    const d = await client.decide({
      state: "Refund me.",
      questions: {
        refund: { type: "check", instructions: "Does the customer ask for a refund?" },
        mood: { type: "pick", instructions: "Mood?", options: { calm: null } },
      },
    });
    expectTypeOf(d.answers.refund.calibration).toEqualTypeOf<string | undefined>();
    expectTypeOf(d.answers.mood.calibration).toEqualTypeOf<string | undefined>();
    expect([d.answers.refund.calibration, d.answers.mood.calibration]).toEqual([ID, undefined]);
  });
});
