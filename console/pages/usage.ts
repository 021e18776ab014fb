import uPlot from "uplot";
import { api, errorText } from "../api";
import { field, h, notice } from "../dom";
import { eurFromMicroCents, tokens, utcDate } from "../format";
import { bucketLabel, everyNth } from "../time-axis";
import type { ConsoleKey } from "./keys";

interface Point {
  start: string;
  requests: number;
  input_tokens: number;
  charge_micro_cents: number;
  error_requests: number;
}
/** The batch lines among the calls, bucket for bucket (GET /v1/console/usage/batch-lines). */
interface BatchLines {
  points: Array<Pick<Point, "start" | "requests" | "input_tokens" | "charge_micro_cents" | "error_requests">>;
}
interface Series {
  granularity: "day" | "hour";
  group_by: string;
  series: Array<{ group: string | null; points: Point[] }>;
}

const bars = uPlot.paths.bars!({ size: [0.6, 48] });
/** The chart's series of batch lines (no key, model or serving path is named this). */
const BATCH_LINES = "\u0000batch-lines";
const COLORS = ["#2563eb", "#db2777", "#16a34a", "#ea580c", "#7c3aed", "#0891b2", "#ca8a04", "#475569"];
const METRICS: Record<string, { label: string; value: (p: Point) => number }> = {
  requests: { label: "Requests", value: (p) => p.requests },
  input_tokens: { label: "Input tokens", value: (p) => p.input_tokens },
  errors: { label: "Errors", value: (p) => p.error_requests },
};

function select(name: string, options: Array<[string, string]>, selected: string): HTMLSelectElement {
  return h(
    "select",
    { name },
    ...options.map(([v, label]) => h("option", { value: v, selected: v === selected }, label)),
  );
}

/** Usage by UTC day or hour from GET /v1/console/usage/series, grouped by key, model or served_by. */
export async function usagePage(main: HTMLElement): Promise<void> {
  const granularity = select(
    "granularity",
    [
      ["day", "By day"],
      ["hour", "By hour"],
    ],
    "day",
  );
  const groupBy = select(
    "group_by",
    [
      ["none", "Everything"],
      ["key", "Key"],
      ["model", "Model"],
      ["served_by", "Served by"],
    ],
    "key",
  );
  const range = select(
    "range",
    [
      ["2", "Last 2 days"],
      ["7", "Last 7 days"],
      ["30", "Last 30 days"],
      ["90", "Last 90 days"],
    ],
    "7",
  );
  const metric = select(
    "metric",
    Object.entries(METRICS).map(([k, m]) => [k, m.label]),
    "requests",
  );
  const controls = h(
    "form",
    { class: "row controls", id: "usage-controls" },
    field("Granularity", granularity),
    field("Group by", groupBy),
    field("Range", range, "Hours: at most 7 days."),
    field("Show", metric),
  );
  const chart = h("figure", { class: "chart", id: "usage-chart" });
  const totals = h("div", { id: "usage-totals" });
  const status = h("div", { "aria-live": "polite" });
  main.append(
    controls,
    status,
    chart,
    totals,
    h(
      "p",
      { class: "hint" },
      "Batch lines are the decides of your uploaded batches (",
      h("a", { href: "/console/batches" }, "Batches"),
      "): they count in every total above, and their share is shown apart.",
    ),
  );

  const keys = await api<{ data: ConsoleKey[] }>("GET", "/v1/console/keys").catch(() => ({ data: [] }));
  const keyName = new Map(keys.data.map((k) => [k.id, `${k.name ?? k.prefix} (${k.prefix}…)`]));
  let plot: uPlot | null = null;

  async function load(): Promise<void> {
    let days = Number(range.value);
    if (granularity.value === "hour" && days > 7) days = 7;
    const today = new Date();
    const q = new URLSearchParams({
      start: utcDate(today, -(days - 1)),
      end: utcDate(today, 1),
      granularity: granularity.value,
      group_by: groupBy.value,
    });
    const lines = new URLSearchParams(q);
    lines.delete("group_by");
    try {
      // The batch lines are a second, smaller read: without them the series is still drawn.
      const [s, batch] = await Promise.all([
        api<Series>("GET", `/v1/console/usage/series?${q}`),
        api<BatchLines>("GET", `/v1/console/usage/batch-lines?${lines}`).catch(() => null),
      ]);
      status.replaceChildren();
      draw(s, batch);
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    }
  }

  function label(group: string | null): string {
    if (group === null) return "All calls";
    if (group === BATCH_LINES) return "Batch lines";
    return groupBy.value === "key" ? (keyName.get(group) ?? group) : group;
  }

  function draw(s: Series, batch: BatchLines | null): void {
    plot?.destroy();
    plot = null;
    const m = METRICS[metric.value]!;
    const xs = (s.series[0]?.points ?? []).map((p) => Date.parse(p.start) / 1000);
    // With everything in one series, the batch lines among it are drawn beside it.
    const batchSeries =
      s.group_by === "none" && batch && batch.points.some((p) => p.requests + p.error_requests > 0)
        ? [{ group: BATCH_LINES, points: batch.points as Point[] }]
        : [];
    const drawn = [...s.series, ...batchSeries];
    const total = s.series.reduce((n, g) => n + g.points.reduce((a, p) => a + p.requests, 0), 0);
    chart.dataset.totalRequests = String(total);
    const caption = h(
      "figcaption",
      {},
      `${m.label} by ${s.granularity} (UTC), ${s.group_by === "none" ? "all calls" : `by ${groupBy.selectedOptions[0]?.textContent?.toLowerCase()}`}${batchSeries.length > 0 ? ", and the batch lines among them" : ""}`,
    );
    if (s.series.length === 0) {
      chart.replaceChildren(caption, h("p", { class: "empty" }, "No calls in this range yet."));
    } else {
      const holder = h("div", {
        class: "plot",
        role: "img",
        "aria-label": `Chart: ${caption.textContent}. The table below has the totals.`,
      });
      chart.replaceChildren(caption, holder);
      const width = Math.max(280, chart.clientWidth - 8);
      const step = s.granularity === "day" ? 86_400 : 3_600;
      const asBars = drawn.length === 1 && s.granularity === "day";
      plot = new uPlot(
        {
          width,
          height: width < 500 ? 220 : 300,
          // Buckets are UTC days or hours: ticks on bucket starts, labelled in UTC.
          tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
          scales: {
            // Half a bucket of room on each side, so the first and last bars are whole.
            x: { time: true, range: (_u, min, max) => [min - step / 2, max + step / 2] },
            y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] },
          },
          axes: [
            {
              splits: () => everyNth(xs, Math.ceil((xs.length * 70) / width)),
              values: (_u, vals) => vals.map((v) => bucketLabel(v, s.granularity)),
            },
            {
              size: 60,
              values: (_u, vals) => vals.map((v) => (Number.isInteger(v) ? tokens(v) : "")),
            },
          ],
          series: [
            { label: "Time" },
            ...drawn.map((g, i) => ({
              label: label(g.group),
              stroke: COLORS[i % COLORS.length],
              fill: `${COLORS[i % COLORS.length]}22`,
              width: 2,
              ...(asBars ? { paths: bars, points: { show: false } } : { points: { show: true, size: 6 } }),
              value: (_u: uPlot, v: number | null) => (v === null ? "—" : tokens(v)),
            })),
          ],
        },
        [xs, ...drawn.map((g) => g.points.map((p) => m.value(p)))],
        holder,
      );
    }
    totals.replaceChildren(totalsTable(s, label, batch));
  }

  for (const el of [granularity, groupBy, range, metric]) el.addEventListener("change", load);
  controls.addEventListener("submit", (ev) => ev.preventDefault());
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(
      () => plot?.setSize({ width: Math.max(280, chart.clientWidth - 8), height: plot.height }),
      150,
    );
  });
  await load();
}

/** A part and its share of a whole: `1,234 (21.7 %)`. */
function share(part: number, whole: number, format: (n: number) => string): string {
  return whole > 0 ? `${format(part)} (${((part / whole) * 100).toFixed(1)} %)` : format(part);
}

/** The totals row of the batch lines among all the range's calls (their share of each column). */
function batchLinesRow(s: Series, batch: BatchLines): HTMLElement {
  const all = (f: (p: Point) => number) =>
    s.series.reduce((n, g) => n + g.points.reduce((a, p) => a + f(p), 0), 0);
  const of = (f: (p: BatchLines["points"][number]) => number) => batch.points.reduce((a, p) => a + f(p), 0);
  return h(
    "tr",
    { "data-group": "batch-lines", class: "batch-lines" },
    h("th", { scope: "row" }, "Of which batch lines"),
    h(
      "td",
      { class: "num requests" },
      share(
        of((p) => p.requests),
        all((p) => p.requests),
        tokens,
      ),
    ),
    h(
      "td",
      { class: "num" },
      share(
        of((p) => p.input_tokens),
        all((p) => p.input_tokens),
        tokens,
      ),
    ),
    h(
      "td",
      { class: "num" },
      share(
        of((p) => p.charge_micro_cents),
        all((p) => p.charge_micro_cents),
        eurFromMicroCents,
      ),
    ),
    h(
      "td",
      { class: "num" },
      share(
        of((p) => p.error_requests),
        all((p) => p.error_requests),
        tokens,
      ),
    ),
  );
}

function totalsTable(s: Series, label: (g: string | null) => string, batch: BatchLines | null): HTMLElement {
  if (s.series.length === 0) return h("span", {});
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", {}, "Totals in the range"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...["Group", "Requests", "Input tokens", "Charge", "Errors"].map((t) =>
            h("th", { scope: "col" }, t),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        ...s.series.map((g) => {
          const sum = (f: (p: Point) => number) => g.points.reduce((a, p) => a + f(p), 0);
          return h(
            "tr",
            { "data-group": g.group ?? "none" },
            h("th", { scope: "row" }, label(g.group)),
            h("td", { class: "num requests" }, tokens(sum((p) => p.requests))),
            h("td", { class: "num" }, tokens(sum((p) => p.input_tokens))),
            h("td", { class: "num" }, eurFromMicroCents(sum((p) => p.charge_micro_cents))),
            h("td", { class: "num" }, tokens(sum((p) => p.error_requests))),
          );
        }),
        batch ? batchLinesRow(s, batch) : null,
      ),
    ),
  );
}
