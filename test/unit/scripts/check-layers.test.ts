import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkLayers, collectImports, readFloors, valueImports } from "../../../scripts/check-layers";

const floors = readFloors("```floors\nroutes\ncalibrations\ndecide\nhttp\n```\n");

describe("check-layers: a value import in workers/ goes down the floors of docs/architecture.md", () => {
  it("reads the floors top first and numbers them bottom first", () => {
    expect(floors).toEqual([["http"], ["decide"], ["calibrations"], ["routes"]]);
  });

  it("leaves type-only imports out and keeps value, mixed, side-effect, re-export and dynamic imports", () => {
    const text = [
      'import type { A } from "./a";',
      'import { type B } from "./b";',
      'import { type C, d } from "./c";',
      'import "./e";',
      'export { f } from "./f";',
      'export type { G } from "./g";',
      'const h = await import("./h");',
    ].join("\n");
    expect(valueImports("x.ts", text).map((i) => i.specifier)).toEqual(["./c", "./e", "./f", "./h"]);
  });

  it("refuses an import up a floor, sideways, into routes/ and into gpu-worker/; admits one down", () => {
    const at = (from: string, to: string) => ({ from, to, line: 1 });
    const found = checkLayers(
      [
        at("workers/decide/money-path.ts", "workers/calibrations/lookup"),
        at("workers/calibrations/service.ts", "workers/routes/console/body"),
        at("workers/calibrations/metrics.ts", "gpu-worker/eval/metrics"),
        at("workers/calibrations/fit.ts", "workers/decide/calibration"),
        at("workers/decide/validate.ts", "workers/decide/validate-issues"),
      ],
      floors,
    );
    expect(found.map((v) => v.from)).toEqual([
      "workers/decide/money-path.ts",
      "workers/calibrations/service.ts",
      "workers/calibrations/metrics.ts",
    ]);
  });

  it("this tree passes the floors written in docs/architecture.md", () => {
    const written = readFloors(readFileSync("docs/architecture.md", "utf8"));
    expect(checkLayers(collectImports("."), written)).toEqual([]);
  });
});
