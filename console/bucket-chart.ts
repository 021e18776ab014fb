import uPlot from "uplot";
import { h } from "./dom";
import { bucketLabel, bucketSeconds, everyNth } from "./time-axis";

/** A series of a {@link bucketChart}: a value per bucket (null: none), drawn as a line on [0, 1]. */
export interface BucketLine {
  label: string;
  ys: (number | null)[];
  color: string;
  dash?: number[];
}

/** A version change to mark: the bucket it starts at and the words of its label. */
export interface Marker {
  index: number;
  label: string;
}

/** What a {@link bucketChart} draws over UTC buckets starting at `xs` (seconds). */
export interface BucketChartSpec {
  id: string;
  caption: string;
  granularity: "day" | "hour";
  xs: number[];
  /** Shares stacked as bars, bottom band first (each bucket's bands sum to 1, or are all null). */
  stack?: { labels: string[]; shares: (number | null)[][]; colors: string[] };
  lines?: BucketLine[];
  markers: Marker[];
}

const percent = (v: number | null) => (v === null || v === undefined ? "—" : `${(v * 100).toFixed(1)} %`);
const bars = uPlot.paths.bars!({ size: [0.8, 40] });

/** Draws a dashed vertical rule and its label at each marker's bucket boundary (canvas pixels). */
function markerPlugin(markers: Marker[], xs: number[], step: number): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const ctx = u.ctx;
        const { top, height } = u.bbox;
        const px = uPlot.pxRatio;
        ctx.save();
        ctx.strokeStyle = "#111827";
        ctx.lineWidth = 1.5 * px;
        ctx.setLineDash([5 * px, 4 * px]);
        ctx.font = `${11 * px}px system-ui, sans-serif`;
        ctx.textBaseline = "top";
        ctx.textAlign = "left";
        for (const m of markers) {
          const at = xs[m.index];
          if (at === undefined) continue;
          const x = Math.round(u.valToPos(at - step / 2, "x", true));
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          const width = ctx.measureText(m.label).width;
          const left = x + 4 * px + width > u.bbox.left + u.bbox.width ? x - 4 * px - width : x + 4 * px;
          ctx.fillStyle = "rgba(255, 255, 255, 0.85)";
          ctx.fillRect(left - 2 * px, top + 1 * px, width + 4 * px, 14 * px);
          ctx.fillStyle = "#111827";
          ctx.fillText(m.label, left, top + 2 * px);
        }
        ctx.restore();
      },
    },
  };
}

/**
 * A captioned uPlot chart of shares (y on [0, 1]) over UTC buckets: stacked bars (drawn from the top band down,
 * each bar the running total, so every band shows its own share in the legend) and lines, with dashed rules where
 * the version changes. Drawn once the figure is in the page; `resize` fits it to its container again.
 */
export function bucketChart(spec: BucketChartSpec): { el: HTMLElement; resize(): void; destroy(): void } {
  const holder = h("div", {
    class: "plot",
    role: "img",
    "aria-label": `Chart: ${spec.caption}. The table below has the numbers.`,
  });
  const el = h("figure", { class: "chart", id: spec.id }, h("figcaption", {}, spec.caption), holder);
  const step = bucketSeconds(spec.granularity);
  const stack = spec.stack ?? { labels: [], shares: [], colors: [] };
  // Running totals, bottom band first; drawn top first so each lower band paints over the one above.
  const totals = stack.shares.map((_, k) =>
    spec.xs.map((_, i) => {
      let sum: number | null = null;
      for (let j = 0; j <= k; j++) {
        const v = stack.shares[j]?.[i];
        if (v !== null && v !== undefined) sum = (sum ?? 0) + v;
      }
      return sum;
    }),
  );
  const order = stack.labels.map((_, k) => stack.labels.length - 1 - k);
  const lines = spec.lines ?? [];
  const widthOf = () => Math.max(280, el.clientWidth - 26);
  let plot: uPlot | null = null;
  queueMicrotask(() => {
    const width = widthOf();
    plot = new uPlot(
      {
        width,
        height: width < 500 ? 220 : 280,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        scales: {
          x: { time: true, range: (_u, min, max) => [min - step / 2, max + step / 2] },
          y: { range: [0, 1] },
        },
        axes: [
          {
            splits: () => everyNth(spec.xs, Math.ceil((spec.xs.length * 70) / width)),
            values: (_u, vals) => vals.map((v) => bucketLabel(v, spec.granularity)),
          },
          { size: 50, values: (_u, vals) => vals.map((v) => `${Math.round(v * 100)} %`) },
        ],
        series: [
          { label: "Time" },
          ...order.map((k) => ({
            label: stack.labels[k],
            stroke: stack.colors[k],
            fill: stack.colors[k],
            width: 0,
            paths: bars,
            points: { show: false },
            value: (_u: uPlot, _v: number | null, _s: number, i: number | null) =>
              percent(i === null ? null : (stack.shares[k]?.[i] ?? null)),
          })),
          ...lines.map((l) => ({
            label: l.label,
            stroke: l.color,
            width: 2.5,
            dash: l.dash,
            points: { show: true, size: 5 },
            value: (_u: uPlot, v: number | null) => percent(v),
          })),
        ],
        plugins: [markerPlugin(spec.markers, spec.xs, step)],
      },
      [spec.xs, ...order.map((k) => totals[k]!), ...lines.map((l) => l.ys)],
      holder,
    );
  });
  return {
    el,
    resize: () => {
      if (el.isConnected) plot?.setSize({ width: widthOf(), height: plot.height });
    },
    destroy: () => plot?.destroy(),
  };
}
