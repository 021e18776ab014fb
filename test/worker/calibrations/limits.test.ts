import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { INACTIVE_CALIBRATION_RETENTION_DAYS, sweepCalibrations } from "../../../workers/calibrations/sweep";
import type { Env } from "../../../workers/env";
import { insertDoneEvaluation, underConfidentChecks } from "../../support/calibrations";
import { consoleCall } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { expectError, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const q = sqlQuery(env);

const post = (path: string, secret: string, evaluation: string) =>
  consoleCall("POST", path, { bearer: secret, body: { evaluation, question: "refund" } });

describe("issue 50 item 5: calibration fits take from the key's limits, fit once, and are not kept forever", () => {
  it("creates and previews count against the key's requests per minute: past it, 429 requests_per_minute with retry-after and the ratelimit headers", async () => {
    const a = await seed({ keys: [{ mode: "test", rpmLimit: 2 }] });
    const key = a.keys[0]!.secret;
    const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 21));
    expect((await post("/v1/calibration-previews", key, evaluation)).status).toBe(200);
    expect((await post("/v1/calibrations", key, evaluation)).status).toBe(201);
    for (const path of ["/v1/calibration-previews", "/v1/calibrations"]) {
      const res = await post(path, key, evaluation);
      expect(res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(res.headers.get("ratelimit-policy")).toBeTruthy();
      expect(res.headers.get("ratelimit")).toBeTruthy();
      await expectError(res, 429, "requests_per_minute");
    }
  });

  it("a preview followed by a create of the same evaluation and question fits once: the create reads no labels again", async () => {
    const a = await seed({ keys: [{ mode: "test" }, { mode: "live" }] });
    const [test, live] = [a.keys[0]!.secret, a.keys[1]!.secret];
    const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 23));
    const preview = (await (await post("/v1/calibration-previews", test, evaluation)).json()) as {
      map: unknown;
      metrics: unknown;
    };
    // Were the labels read again, these answers (all "yes" now, 1.0) would fit another map or none.
    await q(`UPDATE evaluation_items SET expected = '{"refund":true}' WHERE evaluation_id = $1`, [
      evaluation,
    ]);
    const made = await post("/v1/calibrations", test, evaluation);
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ map: preview.map, metrics: preview.metrics, mode: "test" });
    // The promotion (a live key, same evaluation and question) reuses it too.
    const promoted = await post("/v1/calibrations", live, evaluation);
    expect(await promoted.json()).toMatchObject({ map: preview.map, mode: "live" });
  });

  it(`an inactive calibration is deleted ${INACTIVE_CALIBRATION_RETENTION_DAYS} days after its deactivation by the cron sweep; active ones and younger inactive ones stay`, async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const key = a.keys[0]!.secret;
    const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 25));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(((await (await post("/v1/calibrations", key, evaluation)).json()) as { id: string }).id);
    const [old, young, active] = ids as [string, string, string];
    await q(
      "UPDATE calibrations SET deactivated_at = now() - make_interval(days => $2) - interval '1 minute' WHERE id = $1",
      [old, INACTIVE_CALIBRATION_RETENTION_DAYS],
    );
    await q("UPDATE calibrations SET deactivated_at = now() - make_interval(days => $2) WHERE id = $1", [
      young,
      INACTIVE_CALIBRATION_RETENTION_DAYS - 1,
    ]);
    await sweepCalibrations(env);
    const left = (await q("SELECT id FROM calibrations WHERE account_id = $1 ORDER BY id", [
      a.accountId,
    ])) as { id: string }[];
    expect(left.map((r) => r.id)).toEqual([young, active]);
    await expectError(
      await consoleCall("GET", `/v1/calibrations/${old}`, { bearer: key }),
      404,
      "calibration_not_found",
      "id",
    );
  });

  it("the sweep deletes the kept fits of an evaluation that is gone", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const evaluation = await insertDoneEvaluation(q, a.accountId, underConfidentChecks(100, 27));
    expect((await post("/v1/calibration-previews", a.keys[0]!.secret, evaluation)).status).toBe(200);
    const kept = () => q("SELECT 1 FROM calibration_fits WHERE evaluation_id = $1", [evaluation]);
    expect(await kept()).toHaveLength(1);
    await q("DELETE FROM evaluation_items WHERE evaluation_id = $1", [evaluation]);
    await q("DELETE FROM evaluations WHERE id = $1", [evaluation]);
    await sweepCalibrations(env);
    expect(await kept()).toHaveLength(0);
  });
});
