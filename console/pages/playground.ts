import { answerBars, answerHeadline, type BarAnswer } from "../answer-bars";
import { api, errorText } from "../api";
import { decideCurl } from "../curl";
import { field, h, notice } from "../dom";
import { percent, tokens } from "../format";

interface Decision {
  id: string;
  model: string;
  served_by: string;
  answers: Record<string, BarAnswer>;
  usage: { input_tokens: number; tier: string };
}

const EXAMPLE_STATE = "The customer wrote: my parcel arrived broken, I want my money back.";
const EXAMPLE_QUESTIONS = {
  refund: { type: "check", instructions: "Does the customer ask for a refund?" },
  mood: {
    type: "pick",
    instructions: "How does the customer feel?",
    options: { angry: null, neutral: null, happy: null },
  },
};

/** Playground: state and questions → the decision (free, on the test quota), and the same call as curl. */
export function playgroundPage(main: HTMLElement): void {
  const state = h("textarea", { name: "state", rows: 4, required: true, maxlength: 65536 });
  state.value = EXAMPLE_STATE;
  const questions = h("textarea", {
    name: "questions",
    rows: 10,
    required: true,
    spellcheck: "false",
    class: "mono",
  });
  questions.value = JSON.stringify(EXAMPLE_QUESTIONS, null, 2);
  const run = h("button", { type: "submit" }, "Decide");
  const status = h("div", { "aria-live": "polite" });
  const result = h("section", { id: "result", "aria-live": "polite" });
  const curl = h("pre", { id: "curl", class: "mono", tabindex: "0" });
  const form = h(
    "form",
    { id: "playground", class: "card" },
    field("State", state, "Text (or JSON) the questions are about."),
    field(
      "Questions (JSON)",
      questions,
      "Question ids → {type: check | pick | rate, instructions, options or levels}.",
    ),
    run,
  );

  function request(): Record<string, unknown> | null {
    try {
      return { model: "svc-1", state: state.value, questions: JSON.parse(questions.value) };
    } catch {
      return null;
    }
  }
  function updateCurl(): void {
    const body = request();
    curl.textContent = body ? decideCurl(body) : "# The questions are not valid JSON yet.";
  }
  state.addEventListener("input", updateCurl);
  questions.addEventListener("input", updateCurl);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = request();
    if (!body) {
      status.replaceChildren(notice("error", "The questions are not valid JSON."));
      questions.focus();
      return;
    }
    run.setAttribute("disabled", "");
    status.replaceChildren(notice("info", "Deciding…"));
    try {
      const d = await api<Decision>("POST", "/v1/console/playground/decide", { body });
      status.replaceChildren();
      result.replaceChildren(...renderDecision(d));
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    } finally {
      run.removeAttribute("disabled");
    }
  });

  updateCurl();
  main.append(
    h("p", {}, "Free on your account's daily test quota; the answers are the API's own."),
    h("div", { class: "split" }, form, h("div", {}, h("h2", {}, "Answers"), status, result)),
    h(
      "section",
      { class: "card" },
      h("h2", {}, "The same call with curl"),
      h("p", {}, "With a key of yours in SVC_API_KEY (test keys are free):"),
      curl,
    ),
  );
}

function renderDecision(d: Decision): HTMLElement[] {
  const cards = Object.entries(d.answers).map(([id, a]) => {
    const bars = answerBars(a);
    const headline = answerHeadline(a);
    return h(
      "article",
      { class: "answer card", "data-question": id },
      h(
        "h3",
        {},
        h("code", {}, id),
        ` · ${a.type}: `,
        h("strong", {}, headline),
        a.abstained ? h("span", { class: "badge warn" }, "abstained") : null,
      ),
      ...bars,
      h(
        "p",
        { class: "meta" },
        `Confidence ${percent(a.confidence)} · abstained: ${a.abstained ? "yes" : "no"}`,
      ),
    );
  });
  return [
    ...cards,
    h(
      "p",
      { class: "meta", id: "decision-meta" },
      `${d.model}, served by ${d.served_by}, ${tokens(d.usage.input_tokens)} input tokens (tier ${d.usage.tier}, free). Request ${d.id}.`,
    ),
  ];
}
