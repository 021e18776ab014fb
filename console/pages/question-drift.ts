import { api, errorText } from "../api";
import { confirmDialog } from "../confirm";
import { field, h, notice } from "../dom";
import { when } from "../format";
import { driftVerdict, type QuestionDrift, referenceText, STATISTIC_TEXT } from "../question-words";

const day = (iso: string) => iso.slice(0, 10);

/** The drift's numbers as a description list (statistic, value, threshold, reference, this week, drifted). */
function driftFacts(d: QuestionDrift): HTMLElement {
  const row = (key: string, term: string, ...value: Array<Node | string>) =>
    h("div", { "data-fact": key }, h("dt", {}, term), h("dd", {}, ...value));
  return h(
    "dl",
    { class: "facts" },
    row("statistic", "Statistic", STATISTIC_TEXT[d.statistic] ?? d.statistic),
    row("model", "Version compared", d.model ?? "—"),
    row("value", "Value", d.value === null ? "not measured yet" : d.value.toFixed(3)),
    row("threshold", "Threshold", String(d.threshold)),
    row("reference", "Reference", referenceText(d)),
    row(
      "current",
      "Last 7 days",
      `${day(d.current.start)} to ${when(d.current.end)}, ${d.current.count} answers`,
    ),
    row("drifted", "Drifted", d.drifted ? "yes" : "no"),
  );
}

/**
 * The question's drift (GET …/drift, evaluated on read): the verdict, its numbers, a form to change the threshold
 * and a button, behind a confirmation, to restart the reference week from now (POST …/drift).
 */
export async function driftSection(id: string): Promise<HTMLElement> {
  const path = `/v1/console/questions/${encodeURIComponent(id)}/drift`;
  const verdict = h("p", { class: "verdict" });
  const facts = h("div", {});
  const status = h("div", { "aria-live": "polite" });
  const threshold = h("input", {
    type: "number",
    name: "threshold",
    min: "0.01",
    max: "1",
    step: "0.01",
    required: true,
  });
  const save = h("button", { type: "submit" }, "Save threshold");
  const reset = h("button", { type: "button", class: "secondary" }, "Reset reference");
  const form = h(
    "form",
    { id: "drift-threshold" },
    field("Threshold", threshold, "Above 0, at most 1: it drifts when the value is above it."),
    h("p", { class: "actions" }, save, reset),
  );
  const dialog = confirmDialog({
    title: "Reset the reference week?",
    titleId: "reset-title",
    confirm: "Reset reference",
    confirmId: "confirm-reset",
  });

  const show = (d: QuestionDrift) => {
    const v = driftVerdict(d);
    verdict.dataset.kind = v.kind;
    verdict.replaceChildren(
      h("span", { class: `badge drift-${v.kind}` }, v.kind === "pending" ? "not measured" : v.kind),
      " ",
      v.text,
    );
    facts.replaceChildren(driftFacts(d));
    threshold.value = String(d.threshold);
  };
  const change = async (body: unknown, done: string) => {
    for (const b of [save, reset]) b.setAttribute("disabled", "");
    try {
      show(await api<QuestionDrift>("POST", path, { body }));
      status.replaceChildren(notice("success", done));
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    } finally {
      for (const b of [save, reset]) b.removeAttribute("disabled");
    }
  };
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = Number(threshold.value);
    void change({ threshold: value }, `Threshold set to ${value}.`);
  });
  reset.addEventListener("click", async () => {
    const text =
      "The reference becomes the first full week of answers from now: drift is not measured until that week is over, and the next crossing sends question.drifted again.";
    if (await dialog.ask(text))
      await change({ reset_reference: true }, "Reference reset: it is the first full week from now.");
  });

  show(await api<QuestionDrift>("GET", path));
  return h(
    "section",
    { id: "drift", "aria-labelledby": "drift-title", class: "card" },
    h("h2", { id: "drift-title" }, "Drift"),
    verdict,
    facts,
    h(
      "p",
      { class: "hint" },
      "The last 7 days against the reference week, within one version (a change of version is not drift). A check compares its ten bins of P(yes), a pick or rate its answer mix. Crossing the threshold sends question.drifted to your webhook endpoint (Settings) once per crossing.",
    ),
    form,
    status,
    dialog.el,
  );
}
