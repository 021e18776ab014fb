// No drift between the code and docs/deploy.md: every variable the edge Worker, the GPU worker image or the
// deploy scripts read is named there (in backticks), so a newcomer following the page sets everything.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { edgeVars, gpuWorkerVars, ROOT, scriptVars } from "./code-vars";

const doc = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
const documented = new Set([...doc.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
const undocumented = (names: Set<string>) => [...names].filter((n) => !documented.has(n)).sort();

describe("docs/deploy.md documents every variable the code reads", () => {
  it("the edge Worker's", () => {
    expect(edgeVars().size).toBeGreaterThan(25);
    expect(undocumented(edgeVars())).toEqual([]);
  });
  it("the GPU worker's", () => {
    expect(gpuWorkerVars()).toContain("SVC_ANNOUNCE_URL");
    expect(undocumented(gpuWorkerVars())).toEqual([]);
  });
  it("the deploy scripts'", () => {
    expect(undocumented(scriptVars())).toEqual([]);
  });
});
