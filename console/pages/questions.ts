import { ApiError, api, errorText } from "../api";
import { questionSummary } from "../calibration-words";
import { h, notice } from "../dom";
import { tokens, when } from "../format";
import type { ConsoleQuestion, QuestionDefinition } from "../question-words";
import { questionView } from "./question-view";

const QUESTIONS = "/v1/console/questions";
const ID = /^qst_[0-9A-HJKMNP-TV-Z]{26}$/;

async function allQuestions(): Promise<ConsoleQuestion[]> {
  const all: ConsoleQuestion[] = [];
  for (;;) {
    const after = all.at(-1)?.id;
    const page = await api<{ data: ConsoleQuestion[]; has_more: boolean }>(
      "GET",
      `${QUESTIONS}?limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ""}`,
    );
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
  }
}

/** What the question offers as written: its options, levels or criteria. */
function writtenDetail(q: QuestionDefinition): string | null {
  if (q.options) return `options: ${Object.keys(q.options).join(", ")}`;
  if (q.levels) return `levels: ${q.levels.join(", ")}`;
  return q.criteria ? `criteria: ${q.criteria}` : null;
}

function listTable(all: ConsoleQuestion[]): HTMLElement {
  const heads = [
    "Question",
    "First asked",
    "Last asked",
    "Last 7 days",
    "Versions",
    "Calibration",
    "Review rule",
  ];
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, "Your questions"),
      h("thead", {}, h("tr", {}, ...heads.map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        ...all.map((q) => {
          const detail = writtenDetail(q.question);
          return h(
            "tr",
            { "data-question-id": q.id },
            h(
              "td",
              { class: "question", title: q.question.instructions },
              h("a", { href: `#${q.id}` }, questionSummary(q.question)),
              detail ? h("small", { class: "hint written" }, detail) : null,
            ),
            h("td", {}, when(q.first_asked)),
            h("td", {}, when(q.last_asked)),
            h("td", { class: "num count" }, tokens(q.count_7d)),
            h("td", { class: "versions" }, q.versions.join(", ")),
            h("td", { class: "calibration" }, q.calibration ?? "none"),
            h("td", { class: "review-rule" }, q.review_rule ?? "none"),
          );
        }),
      ),
    ),
  );
}

/** The account's questions as written; `#qst_…` opens one over time with its drift. */
export async function questionsPage(main: HTMLElement): Promise<void> {
  const title = main.querySelector("h1");
  const clear = () => {
    for (const el of [...main.children]) if (el !== title) el.remove();
  };

  async function render(): Promise<void> {
    clear();
    const id = location.hash.slice(1);
    if (ID.test(id)) {
      try {
        const q = await api<ConsoleQuestion>("GET", `${QUESTIONS}/${encodeURIComponent(id)}`);
        await questionView(main, q);
      } catch (e) {
        main.append(
          h("p", {}, h("a", { href: "/console/questions" }, "← All questions")),
          notice(
            "error",
            e instanceof ApiError && e.status === 404
              ? `There is no question ${id} in your account.`
              : errorText(e),
          ),
        );
      }
      return;
    }
    main.append(
      h(
        "p",
        { class: "hint" },
        "Every question your live keys asked, as written (a change of its words is a new question), with when it was asked, by which versions, and whether a calibration applies. Open one to see its answers over time and its drift.",
      ),
    );
    const list = h("div", { id: "question-list" });
    main.append(list);
    try {
      const all = await allQuestions();
      list.replaceChildren(
        all.length === 0
          ? h(
              "p",
              { class: "empty" },
              "No questions yet: the questions of your live keys' decides appear here soon after they are answered.",
            )
          : listTable(all),
      );
    } catch (e) {
      list.replaceChildren(notice("error", errorText(e)));
    }
  }

  window.addEventListener("hashchange", () => {
    void render().then(() => main.focus());
  });
  await render();
}
