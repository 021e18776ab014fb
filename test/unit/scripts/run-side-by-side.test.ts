import { describe, expect, it } from "vitest";
import { parseLanes, TEST_LANES } from "../../../scripts/run-side-by-side";

// Issue 54 item 1: `npm test`'s tiers run side by side; the integration tier is one lane, unit + worker then
// browser the other, so every tier still runs and none is run twice.
describe("run-side-by-side: lanes", () => {
  it("splits commands at `--` into lanes, in order", () => {
    expect(parseLanes(["a", "b", "--", "c"])).toEqual([["a", "b"], ["c"]]);
    expect(parseLanes(["--", "a", "--"])).toEqual([["a"]]);
  });

  it("npm test's preset runs every tier once: integration beside unit + worker, then browser", () => {
    expect(parseLanes(["--preset", "test"])).toBe(TEST_LANES);
    const projects = TEST_LANES.flat().flatMap((c) => [...c.matchAll(/--project (\w+)/g)].map((m) => m[1]));
    expect(projects.sort()).toEqual(["browser", "integration", "unit", "worker"]);
    expect(TEST_LANES[1]).toEqual([
      "npx vitest run --project unit --project worker",
      "npx vitest run --project browser",
    ]);
  });

  it("refuses an unknown preset", () => {
    expect(() => parseLanes(["--preset", "nope"])).toThrow(/unknown preset nope/);
  });
});
