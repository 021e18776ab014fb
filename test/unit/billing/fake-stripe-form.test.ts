import { describe, expect, it } from "vitest";
import { parseStripeForm, str, stringMap } from "../../../scripts/stack/stripe-fake/form";

describe("the fake Stripe's form parser (the SDK's encoding)", () => {
  it("nested keys, arrays by index, metadata maps", () => {
    const body = new URLSearchParams({
      mode: "payment",
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": "eur",
      "line_items[0][price_data][unit_amount]": "2500",
      "metadata[kind]": "top_up",
      "metadata[top_up_id]": "top_1",
      "automatic_tax[enabled]": "true",
    }).toString();
    const p = parseStripeForm(body);
    expect(str(p, "mode")).toBe("payment");
    expect(Array.isArray(p.line_items)).toBe(true);
    expect(str(p, "line_items", 0, "price_data", "unit_amount")).toBe("2500");
    expect(stringMap(p.metadata)).toEqual({ kind: "top_up", top_up_id: "top_1" });
    expect(str(p, "automatic_tax", "enabled")).toBe("true");
    expect(str(p, "missing", "x")).toBeUndefined();
  });
});
