/** One kept item as the reviewer sees it: the state, the question, svc's answer, and a button per label. */
import { answerBars, answerHeadline } from "./answer-bars";
import { h } from "./dom";
import { percent, when } from "./format";
import { type LabelChoice, labelChoices, SKIP_KEY } from "./review-words";
import type { Review } from "./reviews";

/** The state: text as it is (line breaks kept); JSON indented. */
function stateView(state: unknown): HTMLElement {
  const text = typeof state === "string" ? state : JSON.stringify(state, null, 2);
  return h("pre", { class: typeof state === "string" ? "state text" : "state json", tabindex: 0 }, text);
}

/** The question as written: instructions, criteria, options with their descriptions or levels in order. */
function questionView(r: Review): HTMLElement {
  const q = r.question;
  const criteria = q.criteria ? (Array.isArray(q.criteria) ? q.criteria : [q.criteria]) : [];
  const options = q.type === "pick" ? Object.entries(q.options ?? {}) : [];
  return h(
    "div",
    { class: "review-question" },
    h("p", {}, h("code", {}, r.question_id), ` · ${q.type}: `, h("strong", {}, q.instructions)),
    criteria.length ? h("ul", { class: "criteria" }, ...criteria.map((c) => h("li", {}, c))) : null,
    options.length
      ? h(
          "dl",
          { class: "options" },
          ...options.flatMap(([label, text]) => [h("dt", {}, label), h("dd", {}, text ?? "—")]),
        )
      : null,
    q.type === "rate"
      ? h("p", { class: "hint" }, `Levels, low to high: ${(q.levels ?? []).join(", ")}`)
      : null,
  );
}

/** svc's answer with its probabilities and confidence. */
function answerView(r: Review): HTMLElement {
  const a = r.answer;
  return h(
    "div",
    { class: "answer" },
    h(
      "p",
      {},
      "svc answered ",
      h("strong", {}, answerHeadline(a)),
      ` · confidence ${percent(a.confidence)}`,
      a.abstained ? h("span", { class: "badge warn" }, "abstained") : null,
    ),
    ...answerBars(a),
    h(
      "p",
      { class: "meta" },
      `${r.model} · request ${r.request_id} · kept ${when(r.created)} · deleted ${when(r.expires_at)}`,
    ),
  );
}

/** A label's button: its key shown beside it and declared for assistive technology. */
function labelButton(choice: LabelChoice, onPick: (c: LabelChoice) => void): HTMLButtonElement {
  const b = h(
    "button",
    {
      type: "button",
      class: "label-button",
      "data-label": String(choice.value),
      "aria-keyshortcuts": choice.key ?? null,
      "aria-label": choice.key ? `${choice.text} (key ${choice.key})` : choice.text,
    },
    choice.key ? h("kbd", { "aria-hidden": "true" }, choice.key) : null,
    choice.text,
  );
  b.addEventListener("click", () => onPick(choice));
  return b;
}

/** The item's view and its keys: `buttons` maps each key (labels and skip) to the button it presses. */
export function reviewItemView(
  r: Review,
  onLabel: (c: LabelChoice) => void,
  onSkip: () => void,
): { el: HTMLElement; buttons: Map<string, HTMLButtonElement>; heading: HTMLElement } {
  const choices = labelChoices(r.question);
  const buttons = new Map<string, HTMLButtonElement>();
  const labelButtons = choices.map((c) => {
    const b = labelButton(c, onLabel);
    if (c.key) buttons.set(c.key, b);
    return b;
  });
  const skip = h(
    "button",
    {
      type: "button",
      class: "secondary label-button",
      "aria-keyshortcuts": SKIP_KEY,
      "aria-label": `Skip (key ${SKIP_KEY})`,
    },
    h("kbd", { "aria-hidden": "true" }, SKIP_KEY),
    "Skip",
  );
  skip.addEventListener("click", onSkip);
  buttons.set(SKIP_KEY, skip);
  const heading = h("h3", { tabindex: -1, class: "item-heading" }, "The state");
  const el = h(
    "article",
    { class: "review-item card", "data-review-id": r.id },
    heading,
    stateView(r.state),
    h("h3", {}, "The question"),
    questionView(r),
    h("h3", {}, "svc's answer"),
    answerView(r),
    h(
      "div",
      { class: "labels", role: "group", "aria-label": "Your label" },
      h("h3", {}, "Your label"),
      h("div", { class: "label-buttons" }, ...labelButtons, skip),
    ),
  );
  return { el, buttons, heading };
}
