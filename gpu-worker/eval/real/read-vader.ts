import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A VADER snippet with its raters split into two independent groups (even- and odd-numbered raters). */
export interface RatedText {
  corpus: "tweets" | "amazon" | "movies" | "nyt";
  id: string;
  text: string;
  /** Mean rating (−4 … 4) of the even-numbered raters and of the odd-numbered raters. */
  meanA: number;
  meanB: number;
}

const FILES = {
  tweets: "tweets",
  amazon: "amazonReviewSnippets",
  movies: "movieReviewSnippets",
  nyt: "nytEditorialSnippets",
} as const;

const rows = (path: string) =>
  readFileSync(path, "utf8")
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .map((l) => l.split("\t"));

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Every snippet of the four VADER corpora with both rater groups' means. */
export function readVader(dir: string): RatedText[] {
  const base = join(dir, "hutto_ICWSM_2014");
  return (Object.keys(FILES) as RatedText["corpus"][]).flatMap((corpus) => {
    const text = new Map(rows(join(base, `${FILES[corpus]}_GroundTruth.txt`)).map((r) => [r[0], r[2] ?? ""]));
    return rows(join(base, `${FILES[corpus]}_anonDataRatings.txt`)).flatMap((r) => {
      const ratings = JSON.parse(r[3] ?? "[]") as number[];
      const t = text.get(r[0] as string)?.trim();
      if (!t || ratings.length < 4) return [];
      return [
        {
          corpus,
          id: r[0] as string,
          text: t,
          meanA: mean(ratings.filter((_, i) => i % 2 === 0)),
          meanB: mean(ratings.filter((_, i) => i % 2 === 1)),
        },
      ];
    });
  });
}

/** Sentiment class of a group mean: clear polarity (|m| ≥ 1), neutral (|m| < 0.5), else undecided. */
export function sentimentClass(m: number): "negative" | "neutral" | "positive" | undefined {
  if (m >= 1) return "positive";
  if (m <= -1) return "negative";
  return Math.abs(m) < 0.5 ? "neutral" : undefined;
}
