// The SDK's calibration methods against the Worker's own routes (inside workerd): create, preview, list, get,
// a decide whose answer carries the calibration, delete (the next decide answers without it) and a typed 404;
// the GPU is a fixed-answer stand-in.
import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isSvcError, SvcClient } from "../../../sdk/src/index";
import { createApp } from "../../../workers/app";
import type { Engine } from "../../../workers/clients/engine";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import {
  fixedCheckEngine,
  insertDoneEvaluation,
  REFUND_CHECK,
  underConfidentChecks,
} from "../../support/calibrations";
import { sqlQuery } from "../../support/seed";
import { BASE, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;

/** A client of a fresh app (fresh key cache) whose GPU answers every check with P(yes) 0.7123456. */
function client(apiKey: string) {
  const app = createApp((e) => ({
    ...buildServices(e),
    engine: fixedCheckEngine(0.7123456) as unknown as Engine,
  }));
  return new SvcClient({
    baseUrl: BASE,
    apiKey,
    fetch: (input, init) => Promise.resolve(app.request(String(input), init, env)),
    maxRetries: 0,
  });
}

describe("@svc/sdk calibrations against the Worker", () => {
  it("create, preview, list, get, a calibrated decide, delete, and calibration_not_found by type", async () => {
    const a = await seed({
      keys: [
        { mode: "test", scopes: ["decide"] },
        { mode: "live", scopes: ["decide"] },
      ],
    });
    const evaluation = await insertDoneEvaluation(sqlQuery(env), a.accountId, underConfidentChecks(120));
    const test = client(a.keys[0]!.secret);

    const preview = await test.previewCalibration({ evaluation, question: "refund" });
    expect(preview).toMatchObject({ id: null, object: "calibration_preview", active: false, n: 120 });
    const made = await test.createCalibration({ evaluation, question: "refund" });
    expect(made).toMatchObject({
      object: "calibration",
      model: "svc-1.5.1",
      question: REFUND_CHECK,
      mode: "test",
      active: true,
    });
    expect(made.map).toEqual(preview.map);
    expect(made.metrics!.after.nll).toBeLessThan(made.metrics!.before.nll);
    expect((await test.listCalibrations({ limit: 1 })).data.map((c) => c.id)).toEqual([made.id]);
    expect(await test.getCalibration(made.id)).toEqual(made);

    const ask = {
      model: "svc-1.5.1",
      state: "My parcel arrived broken.",
      questions: { refund: REFUND_CHECK },
    };
    expect((await test.decide(ask)).answers.refund.calibration).toBe(made.id);

    expect(await test.deleteCalibration(made.id)).toMatchObject({ id: made.id, active: false });
    expect((await test.decide(ask)).answers.refund).not.toHaveProperty("calibration");
    expect((await test.getCalibration(made.id)).active).toBe(false);
    const live = client(a.keys[1]!.secret); // a live key of the account: a test key's calibration is not its
    const err = await live.getCalibration(made.id).catch((e: unknown) => e);
    expect(isSvcError(err, "not_found")).toBe(true);
    expect(err).toMatchObject({ code: "calibration_not_found", status: 404 });
  });
});
