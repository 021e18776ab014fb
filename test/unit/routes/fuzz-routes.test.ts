import { describe, expect, it } from "vitest";
import { bodyRoutes, judgeRoute } from "../../../scripts/fuzz/routes";
import { fuzzRoutes } from "../../../scripts/fuzz/run";
import { ENDPOINTS } from "../../../workers/app";

// Issue 45 item 9: `npm run fuzz` sends bodies, some nested thousands deep, to every route that takes one.
describe("fuzz: generated bodies through every route that takes one (console ones included)", () => {
  it("500 bodies, half nested thousands deep: never a 500 before a service, every code the catalogue's and declared", async () => {
    const report = await fuzzRoutes({ count: 500, seed: 20261127 });
    expect(report.failures).toEqual([]);
    expect(report.exceptions).toBe(0);
    expect(report.bodies).toBe(500);
    expect(Object.keys(report.byKind).some((k) => k.endsWith("(deep)"))).toBe(true);
    for (const answer of ["passed", "400 invalid_json", "422 invalid_type", "422 unknown_field"])
      expect(report.byAnswer[answer], answer).toBeGreaterThan(0);
  }, 120_000);

  it("covers every non-GET route, and knows the console bodies' fields (a key's scopes among them)", async () => {
    const { routes } = await bodyRoutes();
    const nonGet = ENDPOINTS.filter((e) => e.route.method !== "get").length;
    expect(routes).toHaveLength(nonGet);
    const fields = (key: string) => routes.find((r) => r.key === key)?.fields;
    expect(fields("POST /v1/console/keys")).toContain("scopes");
    expect(fields("PATCH /v1/console/keys/:id")).toContain("scopes");
    expect(fields("PATCH /v1/console/settings")).toContain("content_logging");
    expect(fields("POST /v1/decide")).toContain("state");
    // Issue 51: the review routes, their bodies and ids that pass the path checks.
    expect(fields("POST /v1/review-rules")).toEqual(["question", "model", "when", "auto_apply"]);
    expect(fields("POST /v1/reviews/:id/label")).toEqual(["label"]);
    expect(routes.find((r) => r.key === "POST /v1/review-rules/:id/next")?.url).toMatch(
      /\/review-rules\/rrule_/,
    );
  });

  it("the oracle sees a 500 before any service, an undeclared code, a status the catalogue does not give", async () => {
    const { routes } = await bodyRoutes();
    const keys = routes.find((r) => r.key === "POST /v1/console/keys")!;
    expect(judgeRoute(keys, { status: 500, code: "internal_error", passed: false })[0]).toMatch(
      /500 internal_error before any service/,
    );
    expect(judgeRoute(keys, { status: 409, code: "plan_sold_out", passed: false })).toContain(
      "POST /v1/console/keys: plan_sold_out is not declared",
    );
    expect(judgeRoute(keys, { status: 400, code: "invalid_value", passed: false })[0]).toMatch(
      /invalid_value with status 400, catalogue 422/,
    );
    expect(judgeRoute(keys, { status: 503, code: "maintenance", passed: true })).toEqual([]);
  });
});
