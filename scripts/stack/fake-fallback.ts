/**
 * A local stand-in for the hosted fallback: an OpenAI-compatible `POST .../chat/completions` answering
 * with exactly the real response shape (Azure OpenAI flavour: `prompt_filter_results`,
 * `content_filter_results`; `choices[0].logprobs.content[0].top_logprobs[{token, logprob, bytes}]`).
 * The answer is deterministic: the codes listed in the prompt ("A: ...") get a distribution derived from a
 * hash of the prompt. Control: `POST /__control {"mode": "ok" | "error" | "filter"}`, `GET /__stats`.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { guarded } from "./guarded";
import { readBody } from "./read-body";

export type FakeFallbackMode = "ok" | "error" | "filter";

export interface FakeFallback {
  url: string;
  calls: () => number;
  setMode(mode: FakeFallbackMode): void;
  close(): Promise<void>;
}

const FILLERS = ["The", " ", "\n", "Answer", "**", "I", "Based", "Option", "answer", "Code"];

function topLogprobs(prompt: string, n: number) {
  const codes = [...prompt.matchAll(/^([A-Z]{1,2}): /gm)].map((m) => m[1]!);
  const h = createHash("sha256").update(prompt).digest();
  // Scores: one favourite code, the rest decaying; fillers take a little mass.
  const scored = codes.map((c, i) => ({
    token: c,
    score: -((h[i % 32]! % 50) / 10) - (i === h[0]! % codes.length ? 0 : 1.5),
  }));
  for (const f of FILLERS) scored.push({ token: f, score: -6 - (h[FILLERS.indexOf(f)]! % 30) / 10 });
  const z = Math.log(scored.reduce((s, t) => s + Math.exp(t.score), 0) * 1.02);
  return scored
    .map((t) => ({ token: t.token, logprob: t.score - z, bytes: [...Buffer.from(t.token, "utf8")] }))
    .sort((a, b) => b.logprob - a.logprob)
    .slice(0, n);
}

const FILTERS = {
  hate: { filtered: false, severity: "safe" },
  self_harm: { filtered: false, severity: "safe" },
  sexual: { filtered: false, severity: "safe" },
  violence: { filtered: false, severity: "safe" },
};

/** Starts the fake on a free loopback port (or `port`). */
export async function startFakeFallback(port = 0): Promise<FakeFallback> {
  let mode: FakeFallbackMode = "ok";
  let calls = 0;
  const server: Server = createServer(
    guarded(async (req, res) => {
      const body = await readBody(req);
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      if (req.url === "/__control" && req.method === "POST") {
        mode = (JSON.parse(body) as { mode: FakeFallbackMode }).mode;
        return send(200, { mode });
      }
      if (req.url === "/__stats") return send(200, { calls, mode });
      if (req.method !== "POST" || !(req.url ?? "").split("?")[0]?.endsWith("/chat/completions"))
        return send(404, { error: { code: "404", message: "Resource not found" } });
      calls++;
      if (!req.headers["api-key"] && !req.headers.authorization)
        return send(401, {
          error: { code: "401", message: "Access denied due to invalid subscription key." },
        });
      if (mode === "error")
        return send(500, { error: { code: "InternalServerError", message: "fake failure" } });
      if (mode === "filter")
        return send(400, {
          error: {
            code: "content_filter",
            message: "The response was filtered",
            param: "prompt",
            status: 400,
          },
        });
      const parsed = JSON.parse(body) as { messages: Array<{ content: string }>; top_logprobs?: number };
      const prompt = parsed.messages.map((m) => m.content).join("\n");
      const top = topLogprobs(prompt, Math.min(parsed.top_logprobs ?? 0, 20));
      const first = top[0] ?? { token: "A", logprob: 0, bytes: [65] };
      const promptTokens = Math.ceil(prompt.length / 4);
      send(200, {
        id: `chatcmpl-${createHash("sha1").update(prompt).digest("hex").slice(0, 29)}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: "gpt-4o-2024-11-20",
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTERS }],
        choices: [
          {
            index: 0,
            finish_reason: "length",
            message: { role: "assistant", content: first.token, refusal: null, annotations: [] },
            logprobs: { content: [{ ...first, top_logprobs: top }], refusal: null },
            content_filter_results: FILTERS,
          },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: 1,
          total_tokens: promptTokens + 1,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
        system_fingerprint: "fp_fake0000",
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/openai/v1`,
    calls: () => calls,
    setMode: (m) => {
      mode = m;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 0);
  startFakeFallback(port).then((f) => console.log(`fake fallback at ${f.url}`));
}
