import { api, errorText } from "../api";
import { bucketChart } from "../bucket-chart";
import { questionSummary } from "../calibration-words";
import { field, h, notice } from "../dom";
import { percent, tokens, utcDate, when } from "../format";
import {
  type ConsoleQuestion,
  mixBands,
  type QuestionBucket,
  type QuestionSeries,
  versionChanges,
} from "../question-words";
import { bucketLabel } from "../time-axis";
import { driftSection } from "./question-drift";

const OPTION_COLORS = [
  "#2563eb",
  "#db2777",
  "#16a34a",
  "#ea580c",
  "#7c3aed",
  "#0891b2",
  "#ca8a04",
  "#475569",
];
const LEVEL_COLORS = ["#1e3a8a", "#1d4ed8", "#3b82f6", "#60a5fa", "#93c5fd", "#bfdbfe", "#dbeafe"];
/** P(yes) from 0 (blue, "no") to 1 (red, "yes"). */
const TENTH_COLORS = [
  "#1e40af",
  "#2563eb",
  "#60a5fa",
  "#93c5fd",
  "#dbeafe",
  "#fee2e2",
  "#fca5a5",
  "#f87171",
  "#dc2626",
  "#991b1b",
];

function select(name: string, options: Array<[string, string]>, selected: string): HTMLSelectElement {
  return h(
    "select",
    { name },
    ...options.map(([v, label]) => h("option", { value: v, selected: v === selected }, label)),
  );
}

/** A bucket's mix in words: `billing 50.0 %, shipping 25.0 %` (a check: its share of yes). */
function mixText(q: ConsoleQuestion, b: QuestionBucket): string {
  const mix = b.mix;
  if (mix === null || b.count === 0) return "—";
  if (Array.isArray(mix))
    return (q.question.levels ?? []).map((l, k) => `${l} ${percent(mix[k] ?? 0)}`).join(", ");
  return Object.entries(mix)
    .map(([label, share]) => `${label} ${percent(share)}`)
    .join(", ");
}

function numbersTable(q: ConsoleQuestion, s: QuestionSeries): HTMLElement {
  const check = q.type === "check";
  const heads = ["Bucket (UTC)", "Version", "Answers", "Mix", ...(check ? ["Mean P(yes)"] : [])];
  heads.push("Mean confidence", "Abstain rate");
  const share = (v: number | null | undefined) => (v === null || v === undefined ? "—" : percent(v));
  return h(
    "details",
    { class: "numbers" },
    h("summary", {}, "The numbers, bucket by bucket"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { id: "question-numbers" },
        h("caption", { class: "visually-hidden" }, "The question's answers per bucket"),
        h("thead", {}, h("tr", {}, ...heads.map((t) => h("th", { scope: "col" }, t)))),
        h(
          "tbody",
          {},
          ...s.data.map((b) =>
            h(
              "tr",
              {},
              h("th", { scope: "row" }, bucketLabel(Date.parse(b.start) / 1000, s.granularity)),
              h("td", {}, b.model ?? "—"),
              h("td", { class: "num" }, tokens(b.count)),
              h("td", {}, mixText(q, b)),
              check ? h("td", { class: "num" }, share(b.mean_p_yes)) : null,
              h("td", { class: "num" }, share(b.mean_confidence)),
              h("td", { class: "num" }, share(b.abstain_rate)),
            ),
          ),
        ),
      ),
    ),
  );
}

/** One question over time (GET …/series) and its drift (GET / POST …/drift). */
export async function questionView(main: HTMLElement, q: ConsoleQuestion): Promise<void> {
  const granularity = select(
    "granularity",
    [
      ["day", "By day"],
      ["hour", "By hour"],
    ],
    "day",
  );
  const range = select(
    "range",
    [
      ["2", "Last 2 days"],
      ["7", "Last 7 days"],
      ["30", "Last 30 days"],
      ["90", "Last 90 days"],
    ],
    "30",
  );
  const controls = h(
    "form",
    { class: "row controls", id: "question-controls" },
    field("Granularity", granularity),
    field("Range", range, "Hours: at most 7 days."),
  );
  const status = h("div", { "aria-live": "polite" });
  const charts = h("div", { id: "question-charts" });
  const versions = h("p", { id: "version-changes" });
  const numbers = h("div", {});
  const facts = h(
    "p",
    { class: "meta" },
    h("code", {}, q.id),
    ` · first asked ${when(q.first_asked)} · last asked ${when(q.last_asked)} · ${tokens(q.count_7d)} answers in the last 7 days`,
    q.calibration ? ` · calibrated (${q.calibration})` : " · not calibrated",
  );
  main.append(
    h("p", {}, h("a", { href: "/console/questions" }, "← All questions")),
    h("h2", { id: "question-title" }, questionSummary(q.question, 200)),
    facts,
    controls,
    status,
    charts,
    versions,
    numbers,
  );
  let drawn: Array<ReturnType<typeof bucketChart>> = [];

  const draw = (s: QuestionSeries) => {
    for (const c of drawn) c.destroy();
    const xs = s.data.map((b) => Date.parse(b.start) / 1000);
    const changes = versionChanges(s.data);
    const markers = changes.map((c) => ({ index: c.index, label: `→ ${c.to}` }));
    const bands = mixBands(q.question, s.data);
    const colors = q.type === "check" ? TENTH_COLORS : q.type === "rate" ? LEVEL_COLORS : OPTION_COLORS;
    const unit = s.granularity === "day" ? "day" : "hour";
    const mix = bucketChart({
      id: "question-mix",
      caption:
        q.type === "check"
          ? `Answers per tenth of P(yes), and the mean P(yes), by ${unit} (UTC)`
          : `Answer mix: the share of each ${q.type === "pick" ? "option" : "level"}, by ${unit} (UTC)`,
      granularity: s.granularity,
      xs,
      stack: { ...bands, colors: bands.labels.map((_, k) => colors[k % colors.length]!) },
      lines:
        q.type === "check"
          ? [{ label: "Mean P(yes)", ys: s.data.map((b) => b.mean_p_yes ?? null), color: "#111827" }]
          : [],
      markers,
    });
    const lines = bucketChart({
      id: "question-lines",
      caption: `Mean confidence and abstain rate, by ${unit} (UTC)`,
      granularity: s.granularity,
      xs,
      lines: [
        { label: "Mean confidence", ys: s.data.map((b) => b.mean_confidence), color: "#2563eb" },
        { label: "Abstain rate", ys: s.data.map((b) => b.abstain_rate), color: "#db2777", dash: [6, 4] },
      ],
      markers,
    });
    drawn = [mix, lines];
    charts.replaceChildren(mix.el, lines.el);
    const answered = s.data.filter((b) => b.count > 0);
    versions.replaceChildren(
      answered.length === 0
        ? "No answers in this range."
        : changes.length === 0
          ? `One version answered in this range: ${answered[0]!.model}.`
          : `Version changes (dashed lines; not drift): ${changes
              .map((c) => `${bucketLabel(Date.parse(c.start) / 1000, s.granularity)}: ${c.from} → ${c.to}`)
              .join("; ")}.`,
    );
    numbers.replaceChildren(numbersTable(q, s));
  };

  const load = async () => {
    let days = Number(range.value);
    if (granularity.value === "hour" && days > 7) days = 7;
    const today = new Date();
    const query = new URLSearchParams({
      start: utcDate(today, -(days - 1)),
      end: utcDate(today, 1),
      granularity: granularity.value,
    });
    try {
      draw(
        await api<QuestionSeries>("GET", `/v1/console/questions/${encodeURIComponent(q.id)}/series?${query}`),
      );
      status.replaceChildren();
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    }
  };

  for (const el of [granularity, range]) el.addEventListener("change", load);
  controls.addEventListener("submit", (ev) => ev.preventDefault());
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => {
      for (const c of drawn) c.resize();
    }, 150);
  });
  await load();
  try {
    main.append(await driftSection(q.id));
  } catch (e) {
    main.append(notice("error", `The drift could not be read: ${errorText(e)}`));
  }
}
