import { api, errorText } from "../api";
import { field, h, notice } from "../dom";
import { percent, tokens, when } from "../format";
import { lineChart, type ReliabilityBin, reliabilityChart } from "../line-chart";
import { calibrateControl } from "./evaluate-calibrate";

interface Metrics {
  n: number;
  accuracy: number;
  mean_absolute_level_error: number | null;
  auc: number | null;
  ece15: number;
  brier: number;
  reliability: ReliabilityBin[];
  risk_coverage: Array<{ min_confidence: number; coverage: number; accuracy: number | null }>;
  thresholds: Array<{ target: number; min_confidence: number | null; coverage: number | null }>;
}
interface Evaluation {
  id: string;
  name: string;
  model: string;
  status: string;
  progress: { done: number; total: number };
  usage: { input_tokens: number };
  created: number;
  resumes_at: number | null;
  failure: { code: string; message: string } | null;
  metrics: Record<string, Metrics> | null;
}
type Answer = {
  type: "pick" | "rate" | "check";
  choice?: string;
  probability?: number;
  probabilities?: Record<string, number> | number[];
  levels?: string[];
};
interface Item {
  index: number;
  expected: Record<string, string | boolean>;
  decision: { answers: Record<string, Answer> } | null;
}

const BASE = "/v1/console/evaluations";
const ACTIVE = new Set(["queued", "running"]);
const fixed = (x: number | null, d = 3) => (x === null ? "—" : x.toFixed(d));

/** Items from JSONL (one JSON object a line) or a JSON array; throws with the line that is not JSON. */
export function parseItems(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) return JSON.parse(trimmed) as unknown[];
  return trimmed
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        throw new Error(`Line ${i + 1} is not JSON.`);
      }
    });
}

/** What an answer said, and whether it matches the expected label (the API's rules for accuracy). */
function verdict(a: Answer, want: string | boolean): { got: string; right: boolean; probs: string } {
  if (a.type === "check") {
    const yes = (a.probability ?? 0) >= 0.5;
    return { got: String(yes), right: yes === want, probs: `p(yes) ${fixed(a.probability ?? 0, 4)}` };
  }
  if (a.type === "pick") {
    const probs = Object.entries((a.probabilities ?? {}) as Record<string, number>);
    return {
      got: a.choice ?? "",
      right: a.choice === want,
      probs: probs.map(([l, p]) => `${l} ${p}`).join(", "),
    };
  }
  const p = (a.probabilities ?? []) as number[];
  let best = 0;
  for (let i = 1; i < p.length; i++) if (p[i]! > p[best]!) best = i;
  const levels = a.levels ?? [];
  return {
    got: levels[best] ?? "",
    right: levels[best] === want,
    probs: levels.map((l, i) => `${l} ${p[i]}`).join(", "),
  };
}

function questionSection(evaluation: string, qid: string, m: Metrics, misses: HTMLElement[]): HTMLElement {
  const reliability = reliabilityChart(
    `Reliability of ${qid}: accuracy by predicted probability (ECE-15 ${fixed(m.ece15)})`,
    m.reliability,
  );
  const rc = m.risk_coverage;
  const coverage = lineChart(
    `Risk–coverage of ${qid}: what min_confidence keeps, and how accurate it is`,
    rc.map((p) => p.min_confidence),
    [
      { label: "Coverage", ys: rc.map((p) => p.coverage), color: "#16a34a" },
      { label: "Accuracy", ys: rc.map((p) => p.accuracy), color: "#db2777" },
    ],
    "min_confidence",
  );
  const summary = h(
    "p",
    { class: "metrics" },
    `n ${m.n} · accuracy ${percent(m.accuracy)}`,
    m.mean_absolute_level_error === null ? "" : ` · mean level error ${fixed(m.mean_absolute_level_error)}`,
    m.auc === null ? "" : ` · AUC ${fixed(m.auc)}`,
    ` · ECE-15 ${fixed(m.ece15)} · Brier ${fixed(m.brier)}`,
  );
  const thresholds = h(
    "table",
    { class: "thresholds" },
    h("caption", {}, `min_confidence for a target accuracy (${qid})`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ...["Target accuracy", "min_confidence", "Coverage"].map((t) => h("th", { scope: "col" }, t)),
      ),
    ),
    h(
      "tbody",
      {},
      ...m.thresholds.map((t) =>
        h(
          "tr",
          { "data-target": t.target },
          h("th", { scope: "row" }, percent(t.target)),
          h("td", { class: "num" }, t.min_confidence === null ? "not reached" : fixed(t.min_confidence, 4)),
          h("td", { class: "num" }, t.coverage === null ? "—" : percent(t.coverage)),
        ),
      ),
    ),
  );
  const missTable =
    misses.length === 0
      ? h("p", { class: "empty" }, "No misses.")
      : h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            { class: "misses" },
            h("caption", {}, `Misses of ${qid}`),
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ...["Item", "Expected", "Answered", "Probabilities"].map((t) => h("th", { scope: "col" }, t)),
              ),
            ),
            h("tbody", {}, ...misses),
          ),
        );
  return h(
    "section",
    { class: "question", "data-question": qid },
    h("h3", {}, qid),
    summary,
    calibrateControl(evaluation, qid),
    h("div", { class: "row charts" }, reliability, coverage),
    h("div", { class: "table-wrap" }, thresholds),
    missTable,
  );
}

async function allItems(id: string): Promise<Item[]> {
  const page = await api<{ data: Item[] }>("GET", `${BASE}/${id}/items?limit=1000`);
  return page.data;
}

/** The page: upload or paste JSONL, the account's runs, one run's results, and two runs side by side. */
export async function evaluatePage(main: HTMLElement): Promise<void> {
  const name = h("input", { name: "name", required: true, maxlength: 200, value: "my evaluation" });
  const model = h("input", { name: "model", value: "svc-1", pattern: "^svc-[0-9]+(\\.[0-9]+\\.[0-9]+)?$" });
  const items = h("textarea", {
    name: "items",
    rows: 6,
    placeholder:
      '{"state": "…", "questions": {"q": {"type": "check", "instructions": "…"}}, "expected": {"q": true}}',
  });
  const file = h("input", { type: "file", name: "file", accept: ".jsonl,.json,application/json" });
  file.addEventListener("change", async () => {
    const f = file.files?.[0];
    if (f) items.value = await f.text();
  });
  const formStatus = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { id: "evaluate-form" },
    field("Name", name),
    field("Model", model, "An alias (svc-1) or an exact version; pinned to its exact version for the run."),
    field("Upload JSONL", file),
    field(
      "Items (JSONL: one item a line)",
      items,
      "Each item: state, questions and the expected answer of each question; 1 to 1,000 items.",
    ),
    h("button", { type: "submit" }, "Evaluate"),
    formStatus,
  );
  const list = h("div", { id: "evaluations" });
  const detail = h("div", { id: "evaluation", "aria-live": "polite" });
  const compare = h("div", { id: "compare" });
  main.append(
    h(
      "p",
      { class: "hint" },
      "Runs are free, on your account's daily test quota. The items and answers you upload are kept 30 days only to show these results, then deleted (or when you delete the run); they are never written to the content log.",
    ),
    form,
    h("h2", {}, "Runs"),
    list,
    compare,
    detail,
  );

  let timer = 0;
  const selected = new Set<string>();

  // Refreshes overlap (the submit, the detail's timer, a run found finished); only the last one asked for is
  // drawn, so an answer fetched while a run was still going never replaces a newer one that shows it done.
  let listAsked = 0;
  async function refreshList(): Promise<Evaluation[]> {
    const asked = ++listAsked;
    const page = await api<{ data: Evaluation[] }>("GET", `${BASE}?limit=100`);
    if (asked !== listAsked) return page.data;
    if (page.data.length === 0) {
      list.replaceChildren(h("p", { class: "empty" }, "No runs yet."));
      return page.data;
    }
    const rows = page.data.map((e) => {
      const box = h("input", {
        type: "checkbox",
        "aria-label": `Compare ${e.name}`,
        checked: selected.has(e.id),
      });
      box.addEventListener("change", () => {
        if (box.checked) selected.add(e.id);
        else selected.delete(e.id);
        void showCompare(page.data);
      });
      const open = h("a", { href: `#${e.id}` }, e.name);
      return h(
        "tr",
        { "data-id": e.id, "data-status": e.status },
        h("td", {}, box),
        h("th", { scope: "row" }, open),
        h("td", {}, e.model),
        h("td", { class: "status" }, e.status),
        h(
          "td",
          {},
          h("progress", { max: e.progress.total, value: e.progress.done }),
          ` ${e.progress.done}/${e.progress.total}`,
        ),
        h("td", {}, when(e.created)),
      );
    });
    list.replaceChildren(
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          {},
          h("caption", {}, "Your evaluations (tick two to compare)"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ...["Compare", "Name", "Model", "Status", "Progress", "Created"].map((t) =>
                h("th", { scope: "col" }, t),
              ),
            ),
          ),
          h("tbody", {}, ...rows),
        ),
      ),
    );
    return page.data;
  }

  async function showCompare(all: Evaluation[]): Promise<void> {
    const runs = all.filter((e) => selected.has(e.id) && e.metrics);
    if (runs.length < 2) {
      compare.replaceChildren();
      return;
    }
    const [a, b] = runs as [Evaluation, Evaluation];
    const qids = [...new Set([...Object.keys(a.metrics!), ...Object.keys(b.metrics!)])];
    const cell = (e: Evaluation, q: string, f: (m: Metrics) => string) =>
      h("td", { class: "num" }, e.metrics![q] ? f(e.metrics![q]!) : "—");
    const t90 = (m: Metrics) => fixed(m.thresholds[0]?.min_confidence ?? null, 4);
    compare.replaceChildren(
      h("h2", {}, "Side by side"),
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { id: "compare-table" },
          h("caption", {}, `${a.name} (${a.model}) vs ${b.name} (${b.model})`),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Question"),
              ...[a, b].flatMap((e) =>
                ["accuracy", "ECE-15", "Brier", "min_confidence @ 90 %"].map((m) =>
                  h("th", { scope: "col" }, `${e.model} ${m}`),
                ),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            ...qids.map((q) =>
              h(
                "tr",
                { "data-question": q },
                h("th", { scope: "row" }, q),
                ...[a, b].flatMap((e) => [
                  cell(e, q, (m) => percent(m.accuracy)),
                  cell(e, q, (m) => fixed(m.ece15)),
                  cell(e, q, (m) => fixed(m.brier)),
                  cell(e, q, t90),
                ]),
              ),
            ),
          ),
        ),
      ),
    );
  }

  async function showDetail(id: string): Promise<void> {
    clearTimeout(timer);
    let e: Evaluation;
    try {
      e = await api<Evaluation>("GET", `${BASE}/${id}`);
    } catch (err) {
      detail.replaceChildren(notice("error", errorText(err)));
      return;
    }
    const head = h(
      "div",
      {},
      h("h2", {}, `${e.name} · ${e.model}`),
      h(
        "p",
        { class: "status", "data-status": e.status },
        `Status: ${e.status}`,
        e.status === "paused" && e.resumes_at
          ? ` (the daily test quota is used up; resumes ${when(e.resumes_at)})`
          : "",
        e.failure ? ` — ${e.failure.message}` : "",
      ),
      h("progress", {
        id: "evaluation-progress",
        max: e.progress.total,
        value: e.progress.done,
        "aria-label": "Items scored",
      }),
      h(
        "span",
        {},
        ` ${e.progress.done} of ${e.progress.total} items · ${tokens(e.usage.input_tokens)} test tokens`,
      ),
    );
    const cancel = h("button", { type: "button", class: "secondary" }, "Cancel run");
    cancel.addEventListener("click", async () => {
      await api("POST", `${BASE}/${id}/cancel`).catch(() => {});
      await showDetail(id);
      await refreshList();
    });
    const remove = h("button", { type: "button", class: "danger" }, "Delete run");
    remove.addEventListener("click", async () => {
      await api("DELETE", `${BASE}/${id}`).catch(() => {});
      detail.replaceChildren(notice("success", "Deleted, with its items and answers."));
      await refreshList();
    });
    const actions = h(
      "div",
      { class: "row" },
      ACTIVE.has(e.status) || e.status === "paused" ? cancel : null,
      remove,
    );
    if (!e.metrics) {
      detail.replaceChildren(head, actions);
      if (ACTIVE.has(e.status))
        timer = window.setTimeout(() => {
          void showDetail(id);
          void refreshList();
        }, 1500);
      return;
    }
    // The list may have been fetched while this run was still running: show it finished (and comparable).
    void refreshList();
    const data = await allItems(id);
    const download = h("button", { type: "button", id: "download-answers" }, "Download answers (JSONL)");
    download.addEventListener("click", () => {
      const blob = new Blob([data.map((i) => JSON.stringify(i)).join("\n") + "\n"], {
        type: "application/x-ndjson",
      });
      const a = h("a", { href: URL.createObjectURL(blob), download: `${e.id}-answers.jsonl` });
      a.click();
      URL.revokeObjectURL(a.href);
    });
    actions.append(download);
    const sections = Object.entries(e.metrics).map(([qid, m]) => {
      const misses = data.flatMap((item) => {
        const a = item.decision?.answers[qid];
        const want = item.expected[qid];
        if (!a || want === undefined) return [];
        const v = verdict(a, want);
        if (v.right) return [];
        return [
          h(
            "tr",
            { "data-item": item.index },
            h("td", {}, String(item.index)),
            h("td", {}, String(want)),
            h("td", {}, v.got),
            h("td", {}, v.probs),
          ),
        ];
      });
      return questionSection(e.id, qid, m, misses);
    });
    detail.replaceChildren(head, actions, ...sections);
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    formStatus.replaceChildren();
    let parsed: unknown[];
    try {
      parsed = parseItems(items.value);
    } catch (err) {
      formStatus.replaceChildren(notice("error", errorText(err)));
      return;
    }
    try {
      const body = {
        name: name.value,
        items: parsed,
        ...(model.value.trim() ? { model: model.value.trim() } : {}),
      };
      const e = await api<Evaluation>("POST", BASE, { body });
      formStatus.replaceChildren(
        notice("success", `Queued: ${e.name} on ${e.model}, ${e.progress.total} items.`),
      );
      location.hash = e.id;
      await refreshList();
    } catch (err) {
      formStatus.replaceChildren(notice("error", errorText(err)));
    }
  });
  window.addEventListener("hashchange", () => {
    if (location.hash.length > 1) void showDetail(location.hash.slice(1));
  });
  const all = await refreshList();
  await showCompare(all);
  if (location.hash.length > 1) await showDetail(location.hash.slice(1));
}
