import { describe, expect, it } from "vitest";
import { DecideRequestWire, Decision, Usage } from "../../../schema/decide";
import { ALIASES, FALLBACK_FOR, findModel, MODELS, V1_LIMITS } from "../../../schema/models";
import { modelList } from "../../../workers/routes/models/list";
import { baseBody } from "../../support/decide-fixtures";

describe("zod wire schemas (documentation shapes for the OpenAPI document)", () => {
  it("DecideRequest: the fixture body parses; unknown fields are rejected", () => {
    expect(DecideRequestWire.safeParse(baseBody()).success).toBe(true);
    expect(DecideRequestWire.safeParse({ ...baseBody(), extra: 1 }).success).toBe(false);
  });
  it("Decision: id pattern req_ + ULID, calibration cal-<8 digits>-<n>, usage integers", () => {
    const decision = {
      id: "req_01JD0000000000000000000000",
      object: "decision",
      created: 1_763_700_000,
      model: "svc-1.0.0",
      served_by: "gpu",
      calibration: "cal-20261121-0",
      answers: {
        p: {
          type: "pick",
          choice: "billing",
          probabilities: { billing: 0.75, shipping: 0.25 },
          confidence: 0.19,
          abstained: false,
        },
        r: {
          type: "rate",
          rating: 1.2,
          levels: ["low", "high"],
          probabilities: [0.4, 0.6],
          confidence: 0.03,
          abstained: true,
        },
        c: { type: "check", probability: 0.9, confidence: 0.53, abstained: false },
      },
      usage: {
        input_tokens: 30,
        state_tokens: 10,
        question_tokens: 20,
        charge_micro_cents: 150,
        unit_price_micro_cents: 5,
        tier: "t1",
      },
    };
    expect(Decision.safeParse(decision).success).toBe(true);
    expect(Decision.safeParse({ ...decision, id: "req_1" }).success).toBe(false);
    expect(Usage.safeParse({ ...decision.usage, state_tokens: 0 }).success).toBe(false);
  });
});

describe("model catalog: Model limits reported by GET /v1/models", () => {
  it("every version reports the spec's limits; 255 exact option probabilities on GPU, 20 on fallback", () => {
    for (const m of MODELS) {
      expect(m.id).toMatch(
        m.served_by === "gpu" ? /^svc-[0-9]+\.[0-9]+\.[0-9]+$/ : /^svc-fallback-[0-9]+\.[0-9]+\.[0-9]+$/,
      );
      expect(m.calibration).toMatch(/^cal-[0-9]{8}-[0-9]+$/);
      expect(m.limits).toEqual({
        ...V1_LIMITS,
        exact_option_probabilities: m.served_by === "gpu" ? 255 : 20,
      });
    }
  });
  it("an alias svc-<major> resolves to an active exact GPU version with an active fallback", () => {
    for (const [alias, exact] of Object.entries(ALIASES)) {
      expect(alias).toMatch(/^svc-[0-9]+$/);
      expect(findModel(exact)).toMatchObject({ served_by: "gpu", status: "active", alias });
      expect(findModel(FALLBACK_FOR[exact]!)).toMatchObject({ served_by: "fallback", status: "active" });
    }
  });
  it("the list body names every limit field and puts retired versions last", () => {
    const body = modelList();
    expect(body.object).toBe("list");
    expect(body.data.map((m) => m.status)).toEqual([...Array(8).fill("active"), "retired"]);
    for (const m of body.data) expect(Object.keys(m)).toEqual(expect.arrayContaining(Object.keys(V1_LIMITS)));
  });
});
