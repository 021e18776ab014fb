/** The Calibrate view's "which method won and why" (issue 49): every method tried, on the same held-out folds. */
import { METHOD_TEXT, methodReason } from "./calibration-words";
import type { Calibration, CalibrationMetrics } from "./calibrations";
import { h } from "./dom";
import { percent } from "./format";

const fixed = (x: number | null, d = 3) => (x === null ? "—" : x.toFixed(d));

/**
 * A table of the version's own answers and each method the fit tried (its cross-validated NLL, accuracy, AUC for
 * checks, ECE-15), the chosen one marked, and the rule that chose it in words. Null for a calibration stored
 * before `metrics.methods` existed.
 */
export function methodsTable(c: Calibration): HTMLElement | null {
  const tried = c.metrics.methods;
  if (!tried || tried.length === 0) return null;
  const check = c.question.type === "check";
  const row = (key: string, label: string, m: CalibrationMetrics, chosen: boolean) =>
    h(
      "tr",
      { "data-method": key, class: chosen ? "chosen" : null },
      h("th", { scope: "row" }, label, chosen ? h("span", { class: "badge test" }, "chosen") : null),
      h("td", { class: "num nll" }, fixed(m.nll, 4)),
      h("td", { class: "num accuracy" }, percent(m.accuracy)),
      check ? h("td", { class: "num auc" }, fixed(m.auc)) : null,
      h("td", { class: "num ece15" }, fixed(m.ece15)),
    );
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "calibration-methods" },
      h("caption", {}, `Each method on the same ${c.metrics.folds} held-out folds`),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...["Method", "NLL", "Accuracy", ...(check ? ["AUC"] : []), "ECE-15"].map((t) =>
            h("th", { scope: "col" }, t),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        row("version", "the version's own answers", c.metrics.before, false),
        ...tried.map((t) =>
          row(
            t.method,
            t.l2 === undefined ? METHOD_TEXT[t.method] : `${METHOD_TEXT[t.method]} (L2 ${t.l2})`,
            t.metrics,
            t.method === c.method,
          ),
        ),
      ),
    ),
    h(
      "p",
      { class: "hint method-reason" },
      methodReason(
        c.method,
        tried.some((t) => t.method === "state_words"),
        c.metrics.not_tried?.find((n) => n.method === "state_words"),
      ),
      c.features
        ? ` It read ${c.features.vocabulary.toLocaleString("en")} word and word-pair buckets of the rendered state (${c.features.model_bytes.toLocaleString("en")} bytes stored).`
        : "",
    ),
  );
}
