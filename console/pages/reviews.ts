import { api, errorText } from "../api";
import { questionSummary } from "../calibration-words";
import { confirmDialog } from "../confirm";
import { h, notice } from "../dom";
import { when } from "../format";
import { reviewItemView } from "../review-item";
import { loopPanel } from "../review-loop";
import { ruleForm } from "../review-rule-form";
import { isPlainKey, type LabelChoice, labelText, whenText } from "../review-words";
import {
  REVIEW_RULES,
  type Review,
  type ReviewClaim,
  type ReviewRule,
  reviewErrorText,
  reviewPath,
  rulePath,
  takenElsewhere,
} from "../reviews";

/**
 * Review (issue 51): the account's review rules, and per rule its queue worked one item at a time by keyboard
 * (one key per label, `s` to skip), each item claimed through `…/next` so that reviewers at once never get the same
 * one; then the loop: an evaluation of the labels, the calibration fitted on it, applied on confirmation.
 */
export async function reviewsPage(main: HTMLElement): Promise<void> {
  const status = h("div", { "aria-live": "polite", id: "review-status" });
  const list = h("div", { id: "rule-list" });
  const queue = h("section", { id: "queue", "aria-labelledby": "queue-title", hidden: true });
  const remove = confirmDialog({
    title: "Delete this review rule?",
    titleId: "delete-rule-title",
    confirm: "Delete rule",
    confirmId: "confirm-delete-rule",
  });
  /** The item on screen and the buttons its keys press; null when none is. */
  let current: { review: Review; buttons: Map<string, HTMLButtonElement> } | null = null;
  let busy = false;

  async function refresh(): Promise<ReviewRule[]> {
    const page = await api<{ data: ReviewRule[] }>("GET", `${REVIEW_RULES}?limit=100`);
    if (page.data.length === 0) {
      list.replaceChildren(
        h(
          "p",
          { class: "empty" },
          "No review rules yet: create one below to keep the decides svc was unsure of.",
        ),
      );
      return page.data;
    }
    list.replaceChildren(
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          {},
          h("caption", { class: "visually-hidden" }, "Review rules"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ...["Question", "Keeps", "Pending", "Labelled", "Skipped", "Loop", ""].map((t) =>
                h("th", { scope: "col" }, t),
              ),
            ),
          ),
          h("tbody", {}, ...page.data.map(ruleRow)),
        ),
      ),
    );
    return page.data;
  }

  function ruleRow(r: ReviewRule): HTMLElement {
    const name = questionSummary(r.question, 60);
    const review = h("button", { type: "button", class: "small", "aria-label": `Review ${name}` }, "Review");
    review.addEventListener("click", () => void openQueue(r.id));
    const del = h(
      "button",
      { type: "button", class: "danger small", "aria-label": `Delete rule ${r.id}` },
      "Delete",
    );
    del.addEventListener("click", () => void deleteRule(r));
    return h(
      "tr",
      { "data-rule-id": r.id },
      h(
        "td",
        { title: r.question.instructions },
        name,
        " ",
        h("span", { class: `badge ${r.mode}` }, r.mode),
        r.full ? h("span", { class: "badge warn" }, "full") : null,
      ),
      h("td", {}, `${whenText(r.when)}${r.model ? ` · ${r.model}` : ""}`),
      h("td", { class: "num pending" }, String(r.counts.pending)),
      h("td", { class: "num labelled" }, String(r.counts.labelled)),
      h("td", { class: "num skipped" }, String(r.counts.skipped)),
      h("td", { class: "loop" }, r.loop.status),
      h("td", { class: "row-actions" }, review, " ", del),
    );
  }

  async function deleteRule(r: ReviewRule): Promise<void> {
    const text = `Every item it kept (${r.counts.kept}) and their labels are deleted now; decides of the question stop being kept within a second. Evaluations and calibrations made from it stay.`;
    if (!(await remove.ask(text))) return;
    try {
      await api("DELETE", rulePath(r.id));
      status.replaceChildren(notice("success", `Deleted ${r.id} and its items.`));
      if (queue.dataset.rule === r.id) closeQueue();
      await refresh();
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    }
  }

  function closeQueue(): void {
    current = null;
    queue.hidden = true;
    delete queue.dataset.rule;
    history.replaceState(null, "", location.pathname);
  }

  const header = h("div", { class: "queue-header" });
  const item = h("div", { id: "review-item" });
  const itemNote = h("div", { "aria-live": "polite", id: "item-note" });
  const loop = h("div", { id: "review-loop" });
  queue.append(header, itemNote, item, loop);

  /** The rule's header and loop panel, read afresh (its counts move as anyone labels). */
  async function showRule(id: string): Promise<void> {
    const r = await api<ReviewRule>("GET", rulePath(id));
    header.replaceChildren(
      h("h2", { id: "queue-title" }, `Queue: ${questionSummary(r.question, 80)}`),
      h(
        "p",
        { class: "meta", id: "queue-counts" },
        `${r.counts.pending} pending · ${r.counts.labelled} labelled · ${r.counts.skipped} skipped · rule ${r.id} (${r.mode}) since ${when(r.created)}`,
      ),
      h(
        "p",
        { class: "hint" },
        "One key per label, shown on its button (y / n for a check; 1–9, then letters, for options and levels), s to skip. Each item is held for you for 2 minutes; other reviewers get other items.",
      ),
    );
    loop.replaceChildren(loopPanel(r, () => showRule(id)));
  }

  async function nextItem(ruleId: string): Promise<void> {
    const claim = await api<ReviewClaim>("POST", rulePath(ruleId, "/next"));
    if (!claim.review) {
      current = null;
      item.replaceChildren(
        h("p", { class: "empty", id: "queue-empty" }, "Nothing left to label in this queue: well done."),
      );
      return;
    }
    const view = reviewItemView(
      claim.review,
      (c) => void act(claim.review!, c),
      () => void act(claim.review!, null),
    );
    current = { review: claim.review, buttons: view.buttons };
    item.replaceChildren(view.el);
    view.heading.focus();
  }

  /** Labels (`choice`) or skips the item, then shows the next; another reviewer's label first is said politely. */
  async function act(r: Review, choice: LabelChoice | null): Promise<void> {
    if (busy || current?.review.id !== r.id) return;
    busy = true;
    for (const b of current.buttons.values()) b.setAttribute("disabled", "");
    try {
      if (choice) await api("POST", reviewPath(r.id, "label"), { body: { label: choice.value } });
      else await api("POST", reviewPath(r.id, "skip"));
      itemNote.replaceChildren(
        notice("success", choice ? `Labelled ${labelText(choice.value)}.` : "Skipped."),
      );
    } catch (e) {
      if (!takenElsewhere(e)) {
        for (const b of current?.buttons.values() ?? []) b.removeAttribute("disabled");
        itemNote.replaceChildren(notice("error", reviewErrorText(e)));
        busy = false;
        return;
      }
      itemNote.replaceChildren(
        notice(
          "info",
          "Someone else labelled this item already, so yours was not saved: here is the next one.",
        ),
      );
    }
    try {
      await Promise.all([nextItem(r.rule), showRule(r.rule)]);
    } catch (e) {
      itemNote.replaceChildren(notice("error", errorText(e)));
    } finally {
      busy = false;
    }
  }

  async function openQueue(ruleId: string): Promise<void> {
    queue.dataset.rule = ruleId;
    queue.hidden = false;
    history.replaceState(null, "", `#${ruleId}`);
    itemNote.replaceChildren();
    try {
      await Promise.all([showRule(ruleId), nextItem(ruleId)]);
    } catch (e) {
      closeQueue();
      status.replaceChildren(notice("error", errorText(e)));
    }
  }

  document.addEventListener("keydown", (e) => {
    if (!current || busy || document.querySelector("dialog[open]")) return;
    const target = e.target as HTMLElement | null;
    const plain = isPlainKey({
      key: e.key,
      ctrlKey: e.ctrlKey,
      altKey: e.altKey,
      metaKey: e.metaKey,
      targetTag: target?.tagName ?? "",
    });
    if (!plain) return;
    const button = current.buttons.get(e.key.toLowerCase());
    if (!button) return;
    e.preventDefault();
    button.click();
  });

  main.append(
    h(
      "p",
      { class: "hint" },
      "A rule keeps, for one question as written, the decides svc was unsure of; you label them here, and the labels make an evaluation and a calibration. Kept items are deleted 30 days after they were kept.",
    ),
    status,
    h("h2", {}, "Review rules"),
    list,
    queue,
    ruleForm(async () => {
      await refresh();
    }),
    remove.el,
  );
  /** `#rrule_…` opens that rule's queue (on load, and when a link or the address bar changes it). */
  const fromHash = async () => {
    const hash = location.hash.slice(1);
    if (/^rrule_[0-9A-Z]{26}$/.test(hash)) await openQueue(hash);
  };
  window.addEventListener("hashchange", () => void fromHash());
  await refresh();
  await fromHash();
}
