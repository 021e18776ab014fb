import { api } from "../api";
import { methodsTable } from "../calibration-methods";
import { METHOD_TEXT } from "../calibration-words";
import {
  CALIBRATION_PREVIEWS,
  CALIBRATIONS,
  type Calibration,
  type CalibrationMetrics,
  calibrationErrorText,
} from "../calibrations";
import { decideCurl } from "../curl";
import { h, notice } from "../dom";
import { percent } from "../format";
import { reliabilityChart } from "../line-chart";

const fixed = (x: number | null, d = 3) => (x === null ? "—" : x.toFixed(d));
/** The accuracy target whose calibrated `min_confidence` the decide snippet uses. */
const SNIPPET_TARGET = 0.95;

function metricsTable(c: Calibration): HTMLElement {
  const { before, after } = c.metrics;
  const row = (label: string, f: (m: CalibrationMetrics) => string, key: string) =>
    h(
      "tr",
      { "data-metric": key },
      h("th", { scope: "row" }, label),
      h("td", { class: "num before" }, f(before)),
      h("td", { class: "num after" }, f(after)),
    );
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "calibration-metrics" },
      h("caption", {}, `Cross-validated over ${c.metrics.folds} folds`),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...["Metric", "Before (the version's map)", "After (your labels)"].map((t) =>
            h("th", { scope: "col" }, t),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        h(
          "tr",
          { "data-metric": "method" },
          h("th", { scope: "row" }, "Method"),
          h("td", {}, "the version's own"),
          h("td", {}, METHOD_TEXT[c.method]),
        ),
        row("Items (n)", (m) => String(m.n), "n"),
        row("Accuracy", (m) => percent(m.accuracy), "accuracy"),
        row("ECE-15 (noise floor)", (m) => `${fixed(m.ece15)} (${fixed(m.ece15_noise_floor)})`, "ece15"),
        row("NLL", (m) => fixed(m.nll, 4), "nll"),
        row("Brier", (m) => fixed(m.brier, 4), "brier"),
        c.question.type === "check" ? row("AUC", (m) => fixed(m.auc), "auc") : null,
      ),
    ),
  );
}

function thresholdsTable(c: Calibration): HTMLElement {
  const { before, after } = c.metrics;
  const cell = (t: CalibrationMetrics["thresholds"][number] | undefined, side: string) => [
    h("td", { class: `num ${side}` }, t?.min_confidence == null ? "not reached" : fixed(t.min_confidence, 4)),
    h("td", { class: "num" }, t?.coverage == null ? "—" : percent(t.coverage)),
  ];
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "calibration-thresholds" },
      h("caption", {}, "min_confidence for a target accuracy"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...[
            "Target accuracy",
            "Uncalibrated min_confidence",
            "Coverage",
            "Calibrated min_confidence",
            "Coverage",
          ].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        {},
        ...after.thresholds.map((t) =>
          h(
            "tr",
            { "data-target": t.target },
            h("th", { scope: "row" }, percent(t.target)),
            ...cell(
              before.thresholds.find((b) => b.target === t.target),
              "before",
            ),
            ...cell(t, "after"),
          ),
        ),
      ),
    ),
  );
}

/** The decide to paste: the question as written, on the calibration's exact version, with the calibrated 95 % threshold. */
function snippet(c: Calibration): HTMLElement {
  const at = c.metrics.after.thresholds.find((t) => t.target === SNIPPET_TARGET)?.min_confidence ?? null;
  const question = at === null ? c.question : { ...c.question, min_confidence: at };
  const body = { model: c.model, state: "…", questions: { [c.question_id]: question } };
  return h(
    "div",
    {},
    h(
      "p",
      { class: "hint" },
      `A decide naming ${c.model} (it belongs to that exact version), this question as written, `,
      at === null
        ? `and no min_confidence: none reaches ${percent(SNIPPET_TARGET)} accuracy after calibration.`
        : `and min_confidence ${fixed(at, 4)}, the calibrated threshold for ${percent(SNIPPET_TARGET)} accuracy.`,
    ),
    h("pre", { class: "mono curl", tabindex: "0" }, decideCurl(body)),
  );
}

function previewView(p: Calibration, onApply: (status: HTMLElement) => Promise<boolean>): HTMLElement[] {
  const apply = h("button", { type: "button", class: "apply" }, "Apply");
  const status = h("div", {});
  apply.addEventListener("click", async () => {
    apply.setAttribute("disabled", "");
    if (!(await onApply(status))) apply.removeAttribute("disabled");
  });
  const { before, after } = p.metrics;
  const methods = methodsTable(p);
  return [
    h(
      "h4",
      {},
      `Calibrated on your ${p.n} labels: ${METHOD_TEXT[p.method]} on ${p.model} (preview, not applied yet)`,
    ),
    h(
      "div",
      { class: "row charts" },
      reliabilityChart(`Before: the version's map (ECE-15 ${fixed(before.ece15)})`, before.reliability),
      reliabilityChart(`After: calibrated on your labels (ECE-15 ${fixed(after.ece15)})`, after.reliability),
    ),
    metricsTable(p),
    ...(methods ? [methods] : []),
    thresholdsTable(p),
    snippet(p),
    h(
      "p",
      { class: "actions" },
      apply,
      h(
        "span",
        { class: "hint" },
        `From then on, decides of this question on ${p.model} answer with this ${p.method === "state_words" ? "model" : "map"}; other answers are unchanged.`,
      ),
    ),
    status,
  ];
}

/**
 * The Calibrate control of one question of a done run: fits a preview (POST …/calibration-previews), shows
 * before / after, thresholds and a decide to paste, and applies it (POST …/calibrations) on request.
 */
export function calibrateControl(evaluation: string, qid: string): HTMLElement {
  const button = h(
    "button",
    { type: "button", class: "secondary", "aria-label": `Calibrate ${qid}` },
    "Calibrate",
  );
  const out = h("div", { class: "calibration", "aria-live": "polite" });
  const body = { evaluation, question: qid };

  async function apply(status: HTMLElement): Promise<boolean> {
    try {
      const c = await api<Calibration>("POST", CALIBRATIONS, { body });
      const said =
        c.status === "fitting"
          ? `Fitting ${c.id} on your account's runner (a large run): decides of ${qid} on ${c.model} answer with it once it is active. `
          : `Applied as ${c.id}: decides of ${qid} on ${c.model} answer with it now. `;
      status.replaceChildren(
        h(
          "p",
          { class: "notice success", role: "status" },
          said,
          h("a", { href: "/console/calibrations" }, "See your calibrations"),
        ),
      );
      return true;
    } catch (e) {
      status.replaceChildren(notice("error", calibrationErrorText(e)));
      return false;
    }
  }

  button.addEventListener("click", async () => {
    button.setAttribute("disabled", "");
    out.replaceChildren(notice("info", `Fitting ${qid} on your labels…`));
    try {
      const p = await api<Calibration>("POST", CALIBRATION_PREVIEWS, { body });
      out.replaceChildren(...previewView(p, apply));
    } catch (e) {
      out.replaceChildren(notice("error", calibrationErrorText(e)));
    } finally {
      button.removeAttribute("disabled");
    }
  });
  return h("div", { class: "calibrate" }, button, out);
}
