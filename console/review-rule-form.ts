/** The New rule form: a question written as JSON or taken from a calibration, which decides to keep. */
import { api } from "./api";
import { questionSummary } from "./calibration-words";
import { CALIBRATIONS, type Calibration } from "./calibrations";
import { field, h, notice, uid } from "./dom";
import { REVIEW_RULES, type ReviewRule, reviewErrorText } from "./reviews";

const EXAMPLE = { type: "check", instructions: "Does the customer ask for a refund?" };

/** A labelled checkbox. */
function checkbox(label: string, checked: boolean): { box: HTMLInputElement; el: HTMLElement } {
  const box = h("input", { type: "checkbox", id: uid("check"), checked });
  return { box, el: h("label", { for: box.id, class: "check" }, box, ` ${label}`) };
}

/** A number from 0 to 1, or undefined when the field is empty. */
function unit(input: HTMLInputElement): number | undefined {
  return input.value.trim() === "" ? undefined : Number(input.value);
}

/** The form; `created` runs with each new rule. */
export function ruleForm(created: (rule: ReviewRule) => Promise<void>): HTMLFormElement {
  const status = h("div", { "aria-live": "polite" });
  const from = h("select", {}, h("option", { value: "" }, "Write it below"));
  const question = h("textarea", { rows: 6, spellcheck: false, class: "mono", required: true });
  question.value = JSON.stringify(EXAMPLE, null, 2);
  const model = h("input", { type: "text", placeholder: "any version", autocomplete: "off" });
  const abstained = checkbox("abstained (the decide's min_confidence)", true);
  const below = h("input", { type: "number", min: 0.01, max: 1, step: 0.01, inputmode: "decimal" });
  below.value = "0.8";
  const sample = h("input", { type: "number", min: 0, max: 1, step: 0.001, inputmode: "decimal" });
  const auto = checkbox(
    "Apply the calibration fitted on the labels without asking when it beats what answers now on held-out NLL",
    false,
  );
  const submit = h("button", { type: "submit" }, "Create rule");

  const seen = new Set<string>();
  api<{ data: Calibration[] }>("GET", `${CALIBRATIONS}?limit=100`)
    .then((page) => {
      for (const c of page.data) {
        const text = JSON.stringify(c.question, null, 2);
        if (seen.has(text)) continue;
        seen.add(text);
        from.append(h("option", { value: text }, `${c.question_id}: ${questionSummary(c.question, 60)}`));
      }
    })
    .catch(() => undefined); // the list is a convenience: the question can always be written
  from.addEventListener("change", () => {
    if (from.value) question.value = from.value;
  });

  const form = h(
    "form",
    { id: "new-rule", class: "card", "aria-labelledby": "new-rule-title" },
    h("h2", { id: "new-rule-title" }, "New rule"),
    field("Start from", from, "A question one of your calibrations answers, or your own below."),
    field(
      "Question (JSON, as a decide writes it)",
      question,
      "Decides whose question has the same type, instructions, criteria and options or levels are considered.",
    ),
    field("Model", model, "An exact version or an alias; empty: any version."),
    h(
      "fieldset",
      {},
      h("legend", {}, "Keep the live decides whose answer"),
      abstained.el,
      h(
        "div",
        { class: "row" },
        field("Confidence below", below, "0 to 1; empty: not by confidence."),
        field(
          "Also keep a random share of the rest",
          sample,
          "0 to 1; empty: 0.01 (1 %), to keep labels unbiased.",
        ),
      ),
    ),
    auto.el,
    h("p", { class: "actions" }, submit),
    status,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let q: unknown;
    try {
      q = JSON.parse(question.value);
    } catch (e) {
      status.replaceChildren(notice("error", `The question is not JSON: ${(e as Error).message}`));
      question.focus();
      return;
    }
    const when: Record<string, unknown> = { abstained: abstained.box.checked };
    const b = unit(below);
    const s = unit(sample);
    if (b !== undefined) when.below_confidence = b;
    if (s !== undefined) when.sample_rate = s;
    const body: Record<string, unknown> = { question: q, when, auto_apply: auto.box.checked };
    if (model.value.trim()) body.model = model.value.trim();
    submit.setAttribute("disabled", "");
    try {
      const rule = await api<ReviewRule>("POST", REVIEW_RULES, { body });
      status.replaceChildren(
        notice("success", `Created ${rule.id}: matching live decides are kept from now on.`),
      );
      await created(rule);
    } catch (e) {
      status.replaceChildren(notice("error", reviewErrorText(e)));
    } finally {
      submit.removeAttribute("disabled");
    }
  });
  return form;
}
