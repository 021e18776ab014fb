/**
 * A rule's loop (issue 51 item 3): make an evaluation of its labelled items, then compare the calibration fitted
 * on it with what answers the question now, and apply it only when the user confirms.
 */
import { ApiError, api } from "./api";
import { CALIBRATIONS, type Calibration, type CalibrationMetrics } from "./calibrations";
import { confirmDialog } from "./confirm";
import { h, notice } from "./dom";
import { LOOP_TEXT } from "./review-words";
import { type ReviewRule, reviewErrorText, rulePath } from "./reviews";

type Side = { title: string; m: CalibrationMetrics; cls: string };
const fixed = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? "—" : x.toFixed(d));
const ROWS: Array<[key: string, label: string, cell: (m: CalibrationMetrics) => string]> = [
  ["n", "Items (n)", (m) => String(m.n)],
  ["accuracy", "Accuracy", (m) => fixed(m.accuracy)],
  ["nll", "NLL (lower is better)", (m) => fixed(m.nll, 4)],
  ["ece15", "ECE-15", (m) => fixed(m.ece15)],
  ["brier", "Brier", (m) => fixed(m.brier, 4)],
  ["auc", "AUC", (m) => fixed(m.auc)],
];

/** JSON with its keys sorted: two questions as written compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** The active calibration of the same version, question and mode as `fitted`, other than it; null when none. */
async function activeBeside(fitted: Calibration & { mode?: string }): Promise<Calibration | null> {
  for (let after: string | null = null; ; ) {
    const page: { data: Array<Calibration & { mode?: string }>; has_more: boolean } = await api(
      "GET",
      `${CALIBRATIONS}?limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ""}`,
    );
    const hit = page.data.find(
      (c) =>
        c.active &&
        c.id !== fitted.id &&
        c.model === fitted.model &&
        c.mode === fitted.mode &&
        canonical(c.question) === canonical(fitted.question),
    );
    if (hit) return hit;
    if (!page.has_more || page.data.length === 0) return null;
    after = page.data.at(-1)?.id ?? null;
  }
}

/** The held-out metrics side by side: the version's own answers, the active calibration, the new one. */
function comparison(sides: Side[]): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "loop-metrics" },
      h("caption", {}, "Held-out metrics (cross-validated folds of each one's labels)"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Metric"),
          ...sides.map((s) => h("th", { scope: "col" }, s.title)),
        ),
      ),
      h(
        "tbody",
        {},
        ...ROWS.map(([key, label, cell]) =>
          h(
            "tr",
            { "data-metric": key },
            h("th", { scope: "row" }, label),
            ...sides.map((s) => h("td", { class: `num ${s.cls}` }, cell(s.m))),
          ),
        ),
      ),
    ),
  );
}

/** The loop panel of `rule`; `changed` re-reads the rule after an action. */
export function loopPanel(rule: ReviewRule, changed: () => Promise<void>): HTMLElement {
  const status = h("div", { "aria-live": "polite" });
  const view = h("div", { class: "loop-view" });
  const dialog = confirmDialog({
    title: "Apply this calibration?",
    titleId: `apply-title-${rule.id}`,
    confirm: "Apply calibration",
    confirmId: `confirm-apply-${rule.id}`,
  });
  const make = h("button", { type: "button", class: "secondary" }, "Make an evaluation");
  if (rule.loop.status === "evaluating" || rule.loop.status === "fitting") make.setAttribute("disabled", "");
  make.addEventListener("click", async () => {
    make.setAttribute("disabled", "");
    try {
      const e = await api<{ id: string; model: string; progress: { total: number } }>(
        "POST",
        rulePath(rule.id, "/evaluations"),
      );
      status.replaceChildren(
        h(
          "p",
          { class: "notice success", role: "status" },
          `Queued evaluation ${e.id}: ${e.progress.total} labelled items on ${e.model}. `,
          h("a", { href: `/console/evaluate#${e.id}` }, "Open it on the Evaluate page"),
          ".",
        ),
      );
      await changed();
    } catch (e) {
      make.removeAttribute("disabled");
      status.replaceChildren(notice("error", reviewErrorText(e)));
    }
  });

  async function showFit(id: string): Promise<void> {
    const fitted = await api<Calibration & { mode?: string }>(
      "GET",
      `${CALIBRATIONS}/${encodeURIComponent(id)}`,
    );
    const active = fitted.active ? null : await activeBeside(fitted);
    const sides: Side[] = [
      { title: "The version's own answers", m: fitted.metrics.before, cls: "version" },
      ...(active ? [{ title: `Active now (${active.id})`, m: active.metrics.after, cls: "active" }] : []),
      { title: `New (${fitted.id})`, m: fitted.metrics.after, cls: "new" },
    ];
    const apply = fitted.active
      ? h("span", { class: "badge test" }, "applied")
      : h("button", { type: "button", class: "apply" }, "Apply…");
    apply.addEventListener("click", async () => {
      const text = `Decides of this question on ${fitted.model} answer with ${fitted.id} within a second${active ? `, instead of ${active.id}` : ""}.`;
      if (!(await dialog.ask(text))) return;
      try {
        await api("POST", `${CALIBRATIONS}/${encodeURIComponent(fitted.id!)}/activate`);
        status.replaceChildren(
          notice("success", `Applied ${fitted.id}: decides of this question answer with it now.`),
        );
        await changed();
      } catch (e) {
        status.replaceChildren(notice("error", reviewErrorText(e)));
      }
    });
    view.replaceChildren(comparison(sides), h("p", { class: "actions" }, apply));
  }

  const links = h(
    "p",
    { class: "hint" },
    rule.loop.evaluation
      ? h("a", { href: `/console/evaluate#${rule.loop.evaluation}` }, `Evaluation ${rule.loop.evaluation}`)
      : h("a", { href: "/console/evaluate" }, "Evaluate page"),
    " · ",
    h("a", { href: "/console/calibrations" }, "Calibrations page"),
  );
  const state = h(
    "p",
    { class: "loop-status", "data-loop": rule.loop.status },
    LOOP_TEXT[rule.loop.status] ?? rule.loop.status,
    rule.auto_apply ? " It is applied without asking when it beats what answers now on held-out NLL." : "",
  );
  const calibration = rule.loop.calibration;
  if (calibration && (rule.loop.status === "fitted" || rule.loop.status === "applied"))
    showFit(calibration).catch((e) =>
      view.replaceChildren(
        notice(
          e instanceof ApiError && e.status === 404 ? "info" : "error",
          e instanceof ApiError && e.status === 404
            ? "The fitted calibration is gone (an inactive one is kept 30 days)."
            : reviewErrorText(e),
        ),
      ),
    );
  return h(
    "section",
    { class: "loop card", "aria-labelledby": `loop-${rule.id}` },
    h("h3", { id: `loop-${rule.id}` }, "Close the loop"),
    state,
    rule.loop.error ? notice("error", `${rule.loop.error.message} [${rule.loop.error.code}]`) : null,
    view,
    h("p", { class: "actions" }, make),
    links,
    status,
    dialog.el,
  );
}
