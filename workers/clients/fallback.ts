import { answerCode } from "../../schema/answer-codes";
import { shapeAnswer } from "../../schema/answers";
import type { ScoreQuestion, ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";

/** Calls to the hosted fallback (OpenAI-compatible chat completions, EU data zone). */
export interface FallbackConfig {
  baseUrl: string;
  deployment: string;
  apiKey: string;
  timeoutMs?: number;
}

export class FallbackError extends Error {}

/** How many alternatives the provider returns per position (OpenAI's maximum). */
export const TOP_LOGPROBS = 20;

function choicesOf(q: ScoreQuestion): string[] {
  if (q.type === "pick")
    return q.options.map((o) => (o.description ? `${o.label} — ${o.description}` : o.label));
  if (q.type === "rate") return q.levels;
  return ["yes", "no"];
}

/** The chat messages for one question: the state, the question, the coded choices, "one code only". */
export function fallbackMessages(state: string, q: ScoreQuestion): Array<{ role: string; content: string }> {
  const lines = [`Material:\n${state}`, "", `Question: ${q.instructions}`];
  if (q.criteria.length > 0) lines.push("Criteria:", ...q.criteria.map((c) => `- ${c}`));
  lines.push("", "Answer codes:", ...choicesOf(q).map((c, i) => `${answerCode(i)}: ${c}`));
  lines.push("", "Reply with exactly one answer code and nothing else.");
  return [
    {
      role: "system",
      content: "You answer a question about the material the user gives by choosing one answer code.",
    },
    { role: "user", content: lines.join("\n") },
  ];
}

interface TopLogprob {
  token: string;
  logprob: number;
}

/**
 * Turns the first position's top log-probabilities into a distribution over the codes. Tokens are matched
 * after trimming whitespace. The probability mass outside the returned top 20 is shared equally by the
 * codes that did not appear (with 20 codes or fewer all usually appear; past 20 this is an estimate).
 */
export function codeDistribution(top: readonly TopLogprob[], codes: readonly string[]): number[] {
  const index = new Map(codes.map((c, i) => [c, i] as const));
  const p = codes.map(() => 0);
  const seen = new Set<number>();
  let topMass = 0;
  for (const t of top) {
    const prob = Math.exp(t.logprob);
    topMass += prob;
    const i = index.get(t.token.trim());
    if (i === undefined) continue;
    p[i]! += prob;
    seen.add(i);
  }
  const unseen = codes.length - seen.size;
  if (unseen > 0) {
    const share = Math.max(0, 1 - topMass) / unseen;
    for (let i = 0; i < codes.length; i++) if (!seen.has(i)) p[i] = share;
  }
  const total = p.reduce((a, b) => a + b, 0);
  return total > 0 ? p.map((v) => v / total) : p.map(() => 1 / codes.length);
}

async function askOne(cfg: FallbackConfig, state: string, q: ScoreQuestion): Promise<number[]> {
  const url = `${cfg.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "api-key": cfg.apiKey,
      authorization: `Bearer ${cfg.apiKey}`,
    },
    body: JSON.stringify({
      model: cfg.deployment,
      messages: fallbackMessages(state, q),
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: TOP_LOGPROBS,
    }),
    signal: AbortSignal.timeout(cfg.timeoutMs ?? 30_000),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new FallbackError(`fallback answered ${res.status}`);
  }
  const json = (await res.json()) as {
    choices?: Array<{ logprobs?: { content?: Array<{ top_logprobs?: TopLogprob[] }> | null } | null }>;
  };
  const top = json.choices?.[0]?.logprobs?.content?.[0]?.top_logprobs;
  if (!Array.isArray(top) || top.length === 0) throw new FallbackError("fallback answered without logprobs");
  const codes = choicesOf(q).map((_, i) => answerCode(i));
  return codeDistribution(top, codes);
}

/** Scores every question on the fallback (one call per question, in parallel). */
export async function fallbackScore(
  cfg: FallbackConfig,
  req: ScoreRequest,
  version: { id: string; calibration: string },
): Promise<Omit<ScoreResponse, "meter">> {
  const dists = await Promise.all(req.questions.map((q) => askOne(cfg, req.state, q)));
  return {
    model: version.id,
    calibration: version.calibration,
    answers: req.questions.map((q, i) => ({ id: q.id, answer: shapeAnswer(q, dists[i]!) })),
  };
}
