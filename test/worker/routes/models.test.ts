import { beforeAll, describe, expect, it } from "vitest";
import { V1_LIMITS } from "../../../schema/models";
import { bearer, call, expectError, seed } from "../../support/worker-http";

let narrow = "";
beforeAll(async () => {
  narrow = (await seed({ keys: [{ mode: "test", scopes: ["usage:read"] }] })).keys[0]!.secret;
});

describe("GET /v1/models", () => {
  it("works with any valid key, any scopes, and reports every limit field", async () => {
    const res = await call("GET", "/v1/models", { headers: bearer(narrow) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: Array<Record<string, unknown>> };
    expect(body.object).toBe("list");
    const byId = Object.fromEntries(body.data.map((m) => [m.id, m]));
    expect(byId["svc-1.5.1"]).toEqual({
      object: "model",
      id: "svc-1.5.1",
      alias: "svc-1",
      served_by: "gpu",
      status: "active",
      calibration: expect.stringMatching(/^cal-[0-9]{8}-[0-9]+$/),
      ...V1_LIMITS,
    });
    // The earlier exact versions stay served with their original calibrations (replays of their originals).
    expect(byId["svc-1.5.0"]).toMatchObject({ alias: null, status: "active", calibration: "cal-20261125-0" });
    expect(byId["svc-1.4.0"]).toMatchObject({ alias: null, status: "active", calibration: "cal-20261123-3" });
    expect(byId["svc-1.3.0"]).toMatchObject({ alias: null, status: "active", calibration: "cal-20261123-2" });
    expect(byId["svc-1.2.0"]).toMatchObject({ alias: null, status: "active", calibration: "cal-20261123-1" });
    expect(byId["svc-1.1.0"]).toMatchObject({ alias: null, status: "active", calibration: "cal-20261123-0" });
    // svc-1.0.0 stays served with its original calibration (replays of its originals), no longer the alias.
    expect(byId["svc-1.0.0"]).toMatchObject({ alias: null, status: "active", calibration: "cal-20261121-3" });
    expect(byId["svc-fallback-1.0.0"]).toMatchObject({
      served_by: "fallback",
      exact_option_probabilities: 20,
    });
    expect(byId["svc-0.9.0"]).toMatchObject({ status: "retired" });
  });
  it("without a key gives 401 missing_api_key", async () => {
    await expectError(await call("GET", "/v1/models"), 401, "missing_api_key");
  });
});
