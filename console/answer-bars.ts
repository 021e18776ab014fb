/** An answer's probabilities as labelled bars (the Playground's and the review queue's). */
import { h } from "./dom";
import { percent } from "./format";

/** An answer as a decide gives it (the fields the bars read). */
export type BarAnswer =
  | { type: "check"; probability: number; confidence: number; abstained: boolean }
  | {
      type: "pick";
      choice: string;
      probabilities: Record<string, number>;
      confidence: number;
      abstained: boolean;
    }
  | {
      type: "rate";
      rating: number;
      levels: string[];
      probabilities: number[];
      confidence: number;
      abstained: boolean;
    };

/** One bar: the label, a `<meter>` named for screen readers, the percentage. */
export function bar(label: string, p: number, strong = false): HTMLElement {
  return h(
    "div",
    { class: strong ? "bar chosen" : "bar" },
    h("span", { class: "bar-label" }, label),
    h("meter", { min: 0, max: 1, value: p, "aria-label": `${label}: ${percent(p)}` }),
    h("span", { class: "num" }, percent(p)),
  );
}

/** A bar per yes / no, option or level, the answer's own one marked. */
export function answerBars(a: BarAnswer): HTMLElement[] {
  if (a.type === "check")
    return [
      bar("yes", a.probability, a.probability >= 0.5),
      bar("no", 1 - a.probability, a.probability < 0.5),
    ];
  if (a.type === "pick")
    return Object.entries(a.probabilities).map(([opt, p]) => bar(opt, p, opt === a.choice));
  return a.levels.map((lvl, i) => bar(lvl, a.probabilities[i] ?? 0, i === Math.round(a.rating)));
}

/** What the answer says in a word: yes / no, the option, or the rating with its nearest level. */
export function answerHeadline(a: BarAnswer): string {
  if (a.type === "check") return a.probability >= 0.5 ? "yes" : "no";
  if (a.type === "pick") return a.choice;
  return `${a.rating.toFixed(2)} (${a.levels[Math.round(a.rating)] ?? ""})`;
}
