import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A JavaScript interview question with the level its author filed it under. */
export interface InterviewQuestion {
  title: string;
  /** Markdown: the question as a heading, then the author's answer. */
  text: string;
  level: "basic" | "intermediate" | "advanced";
}

export const INTERVIEW_LEVELS = ["basic", "intermediate", "advanced"] as const;

/** Every question of the package's `question.json` with a known level (the first of a repeated title). */
export function readInterviewQuestions(dir: string): InterviewQuestion[] {
  const raw = JSON.parse(readFileSync(join(dir, "package", "question.json"), "utf8")) as InterviewQuestion[];
  const seen = new Set<string>();
  return raw.filter((q) => {
    if (seen.has(q.title) || !INTERVIEW_LEVELS.includes(q.level)) return false;
    seen.add(q.title);
    return true;
  });
}
