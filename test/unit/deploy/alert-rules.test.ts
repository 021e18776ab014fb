// Issue 43 item 4: the GPU pool's Prometheus alert rules (deploy/gpu-worker/prometheus-rules.yaml), checked
// without a cluster: they parse, read only metrics the worker exports, and each names its runbook section.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { ALERTS } from "../../../workers/alerts/definitions";
import { ROOT } from "./code-vars";

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; runbook: string };
}

const docs = parseAllDocuments(
  readFileSync(join(ROOT, "deploy/gpu-worker/prometheus-rules.yaml"), "utf8"),
).map((d) => d.toJS() as { kind: string; spec: { groups: { rules: Rule[] }[] } });
const rules = docs.flatMap((d) => d.spec.groups.flatMap((g) => g.rules));
const metrics = readFileSync(join(ROOT, "gpu-worker/src/metrics.ts"), "utf8");
const server = readFileSync(join(ROOT, "gpu-worker/src/server.ts"), "utf8");
const operations = readFileSync(join(ROOT, "docs/operations.md"), "utf8");
/** GitHub's anchor of each heading of docs/operations.md. */
const anchors = new Set(
  [...operations.matchAll(/^#+ (.+)$/gm)].map((m) =>
    m[1]!
      .toLowerCase()
      .replace(/[^a-z0-9 _-]/g, "")
      .replace(/ /g, "-"),
  ),
);

describe("Prometheus rules of the GPU pool (deploy/gpu-worker/prometheus-rules.yaml)", () => {
  it("parse as one PrometheusRule whose rules each have a duration, a severity and a summary", () => {
    expect(docs.map((d) => d.kind)).toEqual(["PrometheusRule"]);
    expect(rules.length).toBeGreaterThanOrEqual(4);
    for (const r of rules) {
      expect(r.for, r.alert).toMatch(/^\d+m$/);
      expect(["warning", "critical"], r.alert).toContain(r.labels.severity);
      expect(r.annotations.summary, r.alert).toBeTruthy();
    }
  });

  it("'checked by the unit tier like the other manifests': every svc_engine_* metric a rule reads is one the worker exports", () => {
    for (const r of rules)
      for (const [name] of r.expr.matchAll(/\bsvc_engine_[a-z_]+/g)) {
        const base = name.replace(/_bucket$/, "");
        expect(
          metrics.includes(`${base} `) || metrics.includes(`${base}_bucket`),
          `${r.alert}: ${name}`,
        ).toBe(true);
      }
    // The outcome a rule counts as a failure is one the worker reports.
    for (const r of rules)
      for (const [, outcome] of r.expr.matchAll(/outcome="([a-z_]+)"/g))
        expect(server.includes(`"${outcome}"`), `${r.alert}: outcome ${outcome}`).toBe(true);
  });

  it("each rule's runbook is a section of docs/operations.md", () => {
    for (const r of rules) {
      const [file, anchor] = r.annotations.runbook.split("#");
      expect(file).toBe("docs/operations.md");
      expect(anchors, r.alert).toContain(anchor);
    }
  });

  it("every alert the edge sends has its section in docs/operations.md (the link each message carries)", () => {
    for (const name of Object.keys(ALERTS)) expect(anchors, name).toContain(name);
  });
});
