import type { z } from "@hono/zod-openapi";
import { getMember, isJsonObject } from "../../schema/json";
import { readJsonText } from "../../schema/json-text";
import type { QuestionBucket } from "../../schema/questions";
import { bucketStarts, bucketWidthMs } from "../reports/buckets";
import type { UsageRange } from "../reports/params";
import type { QuestionHour, QuestionRow } from "../stores/questions";
import { addCounts } from "./drift-statistic";
import { isoSeconds } from "./json";

/** One bucket of a question's series, as schema/questions.ts declares it. */
export type QuestionBucketJson = z.infer<typeof QuestionBucket>;

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The option labels of a pick, the levels of a rate, in the order written (read with the order-keeping reader:
 * `JSON.parse` would move integer-like labels such as "1", "10" first and mislabel the mix).
 */
function labelsOf(q: QuestionRow): string[] {
  if (q.type === "check") return ["no", "yes"];
  const def = readJsonText(q.definition);
  const member = isJsonObject(def) ? getMember(def, q.type === "pick" ? "options" : "levels") : undefined;
  if (isJsonObject(member)) return member.entries.map(([label]) => label);
  return Array.isArray(member) ? member.map(String) : [];
}

/**
 * The question's hours summed into the range's buckets (every bucket, empty ones with count 0 and nulls): answer
 * count, the mix as shares (a pick's per option label, a rate's per level, a check's of no / yes), a check's mean
 * P(yes) and ten-bin histogram, mean confidence, abstain rate, and the answers per version (`model`: the most).
 */
export function shapeSeries(q: QuestionRow, range: UsageRange, hours: readonly QuestionHour[]) {
  const width = bucketWidthMs(range.granularity);
  const labels = labelsOf(q);
  const starts = bucketStarts(range.startMs, range.endMs, range.granularity);
  const sums = starts.map(() => ({
    count: 0,
    mix: [] as number[],
    bins: [] as number[],
    pSum: 0,
    conf: 0,
    abstained: 0,
    models: {} as Record<string, number>,
  }));
  for (const h of hours) {
    const s = sums[Math.floor((h.hour - range.startMs) / width)];
    if (!s) continue;
    s.count += h.answers;
    addCounts(s.mix, h.mix);
    if (h.pBins) addCounts(s.bins, h.pBins);
    s.pSum += h.pSum;
    s.conf += h.confidenceSum;
    s.abstained += h.abstained;
    s.models[h.model] = (s.models[h.model] ?? 0) + h.answers;
  }
  const data = starts.map((start, i): QuestionBucketJson => {
    const s = sums[i]!;
    const n = s.count;
    const share = (k: number) => (n > 0 ? round(k / n) : 0);
    const shares = labels.map((_, k) => share(s.mix[k] ?? 0));
    const mix =
      n === 0 ? null : q.type === "rate" ? shares : Object.fromEntries(labels.map((l, k) => [l, shares[k]!]));
    const top = Object.entries(s.models).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1))[0];
    const bucket: QuestionBucketJson = {
      start: isoSeconds(start),
      model: top?.[0] ?? null,
      models: s.models,
      count: n,
      mix,
      mean_confidence: n > 0 ? round(s.conf / n) : null,
      abstain_rate: n > 0 ? round(s.abstained / n) : null,
    };
    if (q.type === "check") {
      bucket.mean_p_yes = n > 0 ? round(s.pSum / n) : null;
      bucket.histogram = n > 0 ? Array.from({ length: 10 }, (_, k) => share(s.bins[k] ?? 0)) : null;
    }
    return bucket;
  });
  return {
    object: "question_series" as const,
    question: q.id,
    type: q.type,
    start: range.start,
    end: range.end,
    granularity: range.granularity,
    data,
  };
}
