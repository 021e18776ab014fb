import uPlot from "uplot";
import { h } from "./dom";

/** One line of a {@link lineChart}: y per x (null leaves a gap), its colour and an optional dash. */
export interface Line {
  label: string;
  ys: (number | null)[];
  color: string;
  dash?: number[];
}

/**
 * A captioned uPlot line chart on [0, 1] × [0, 1] (reliability, risk–coverage), drawn once the figure is in the
 * page, half the width of its container (two sit side by side).
 */
export function lineChart(label: string, xs: number[], series: Line[], xLabel: string): HTMLElement {
  const holder = h("div", {
    class: "plot",
    role: "img",
    "aria-label": `${label}. The table below has the numbers.`,
  });
  const fig = h("figure", { class: "chart" }, h("figcaption", {}, label), holder);
  queueMicrotask(() => {
    const width = Math.max(280, Math.min(520, (fig.parentElement?.clientWidth ?? 560) / 2 - 24));
    new uPlot(
      {
        width,
        height: 240,
        scales: { x: { time: false, range: [0, 1] }, y: { range: [0, 1] } },
        axes: [{ label: xLabel }, { size: 48 }],
        series: [
          { label: xLabel },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            dash: s.dash,
            points: { show: true, size: 5 },
          })),
        ],
      },
      [xs, ...series.map((s) => s.ys)],
      holder,
    );
  });
  return fig;
}

/** Reliability bins as the API gives them (15 equal bins of the predicted label's probability). */
export interface ReliabilityBin {
  lower: number;
  upper: number;
  count: number;
  mean_probability: number | null;
  accuracy: number | null;
}

/** A reliability diagram: accuracy by predicted probability per bin, against the perfect-calibration diagonal. */
export function reliabilityChart(label: string, bins: readonly ReliabilityBin[]): HTMLElement {
  const mids = bins.map((b) => (b.lower + b.upper) / 2);
  return lineChart(
    label,
    mids,
    [
      { label: "Accuracy", ys: bins.map((b) => b.accuracy), color: "#2563eb" },
      { label: "Perfect calibration", ys: mids, color: "#94a3b8", dash: [4, 4] },
    ],
    "Probability",
  );
}
