// Integration harness of the money-path tests: the edge Worker in workerd (Miniflare) against the test
// stack (Postgres through the Neon bridge, redis through the Upstash bridge), a controllable GPU stand-in
// for fault injection (signed calls verified, killable mid-request) and the fake fallback.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { type RunningWorker, startWorker } from "../../gpu-worker/src/spawn-worker";
import { type ScoreRequest, ScoreRequest as ScoreRequestSchema } from "../../schema/engine-protocol";
import { ALIASES } from "../../schema/models";
import { SignatureVerifier } from "../../schema/signing";
import { type EdgeWorker, startEdgeWorker } from "../../scripts/stack/edge-worker";
import { type FakeFallback, startFakeFallback } from "../../scripts/stack/fake-fallback";
import { guarded } from "../../scripts/stack/guarded";
import { type SeedAccountOptions, type SeededAccount, seedAccount } from "../../scripts/stack/seed";
import { endSigned, endSignedReady } from "./signed-answer";
import { stack, withStackDb } from "./stack-db";

export const ADMIN_TOKEN = "money-test-admin-token";
export const GPU_SECRET = "money-test-gpu-secret";

export interface EdgeOptions {
  gpuUrls?: string[];
  fallbackUrl?: string;
  /** More Worker bindings (e.g. the console's fakes). */
  bindings?: Record<string, string>;
  /** Where the Worker's log lines go (default: the run's log, SVC_EDGE_LOG_FILE). */
  logFile?: string;
}

/** Starts the Worker bound to the test stack. */
export async function startEdge(opts: EdgeOptions = {}): Promise<EdgeWorker> {
  const s = stack();
  const bindings: Record<string, string> = {
    ENVIRONMENT: "test",
    DATABASE_URL: s.DATABASE_URL,
    NEON_WS_PROXY: s.NEON_WS_PROXY,
    NEON_HTTP_ENDPOINT: s.NEON_HTTP_ENDPOINT,
    UPSTASH_REDIS_REST_URL: s.UPSTASH_REDIS_REST_URL,
    UPSTASH_REDIS_REST_TOKEN: s.UPSTASH_REDIS_REST_TOKEN,
    ADMIN_TOKEN,
    GPU_SIGNING_SECRET: GPU_SECRET,
    GPU_POOL_URLS: (opts.gpuUrls ?? []).join(","),
    STRICT_ERROR_DECLARATIONS: "1",
    ...opts.bindings,
  };
  if (opts.fallbackUrl) {
    bindings.FALLBACK_BASE_URL = opts.fallbackUrl;
    bindings.FALLBACK_DEPLOYMENT = "gpt-4o-eu";
    bindings.FALLBACK_API_KEY = "fake-fallback-key";
  }
  return startEdgeWorker({ bindings, ...(opts.logFile && { logFile: opts.logFile }) });
}

/** A fresh account with one key per option (default: one live key with every scope). */
export function seed(opts: SeedAccountOptions = { keys: [{ mode: "live" }] }): Promise<SeededAccount> {
  return withStackDb((q) => seedAccount(q, opts));
}

export async function credit(edgeUrl: string, accountId: string, amount: number, paymentId?: string) {
  const res = await fetch(`${edgeUrl}/internal/ledger/credit`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      account_id: accountId,
      amount_micro_cents: amount,
      payment_id: paymentId ?? `pay_${Math.random().toString(36).slice(2)}`,
    }),
  });
  if (res.status !== 200) throw new Error(`credit: ${res.status} ${await res.text()}`);
  return (await res.json()) as { duplicate: boolean; balance_micro_cents: number };
}

export const DECIDE_BODY = {
  state: { ticket: "The parcel arrived broken and I want my money back." },
  questions: {
    refund: { type: "check", instructions: "Does the customer ask for a refund?" },
    mood: { type: "pick", instructions: "Customer mood?", options: { calm: null, angry: null, "10": "ten" } },
  },
};

export async function decide(
  edgeUrl: string,
  secret: string,
  body: unknown = DECIDE_BODY,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown>; text: string }> {
  const res = await fetch(`${edgeUrl}/v1/decide`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text), text };
}

/** Any API call with a key: JSON body when given; the answer's status, text and parsed JSON. */
export async function apiCall(
  edgeUrl: string,
  method: string,
  path: string,
  secret: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever fields the answer has
): Promise<{ status: number; text: string; json: Record<string, any> }> {
  const res = await fetch(`${edgeUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

export async function balanceOf(edgeUrl: string, secret: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${edgeUrl}/v1/balance`, { headers: { authorization: `Bearer ${secret}` } });
  return (await res.json()) as Record<string, unknown>;
}

/** `other-bytes`: answers like "ok" with other numbers under the same advertised class (the canary's fault). */
export type StandInMode = "ok" | "kill" | "overloaded" | "slow" | "other-bytes";

/** A GPU-worker stand-in (fault injection only): verifies signatures, answers valid ScoreResponses. */
export interface StandInGpu {
  url: string;
  calls: () => number;
  setMode(mode: StandInMode): void;
  close(): Promise<void>;
}

function uniform(req: ScoreRequest) {
  return req.questions.map((q) => {
    if (q.type === "pick") {
      const n = q.options.length;
      const probs = q.options.map(
        (o, i) =>
          [o.label, i === n - 1 ? 1 - (n - 1) * (Math.floor(1e4 / n) / 1e4) : Math.floor(1e4 / n) / 1e4] as [
            string,
            number,
          ],
      );
      return {
        id: q.id,
        answer: {
          type: "pick" as const,
          choice: q.options[0]!.label,
          probabilities: probs,
          confidence: 0,
          abstained: false,
        },
      };
    }
    if (q.type === "rate") {
      const p = q.levels.map(() => 1 / q.levels.length);
      return {
        id: q.id,
        answer: {
          type: "rate" as const,
          rating: (q.levels.length - 1) / 2,
          levels: q.levels,
          probabilities: p,
          confidence: 0,
          abstained: false,
        },
      };
    }
    return {
      id: q.id,
      answer: { type: "check" as const, probability: 0.5, confidence: 0, abstained: false },
    };
  });
}

/** The same answers with every check's probability moved by 0.0001: what other numerics would compute. */
function otherBytes(answers: ReturnType<typeof uniform>): ReturnType<typeof uniform> {
  return answers.map((a) =>
    a.answer.type === "check"
      ? { ...a, answer: { ...a.answer, probability: a.answer.probability + 0.0001 } }
      : a,
  );
}

/**
 * A stand-in worker; with `numericsClass` it advertises that class on `/readyz` (with the versions it serves),
 * reports it on each answer and refuses a replay placed on another class, as the real worker does.
 */
export async function startStandInGpu(
  initial: StandInMode = "ok",
  numericsClass?: string,
): Promise<StandInGpu> {
  let mode = initial;
  let calls = 0;
  let url = "";
  let verifier: SignatureVerifier | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    guarded(async (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === "/readyz") {
        const ready = mode !== "kill";
        if (!ready) return void res.writeHead(503).end("not ready");
        if (!numericsClass) return endSignedReady(res, GPU_SECRET, url, "ok");
        const advert = { ready, numerics_class: numericsClass, models: [ALIASES["svc-1"]] };
        return endSignedReady(res, GPU_SECRET, url, JSON.stringify(advert));
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      calls++;
      verifier ??= new SignatureVerifier(GPU_SECRET, url);
      const v = await verifier.verify(
        { method: "POST", path: "/v1/score", body },
        req.headers["x-svc-timestamp"] as string,
        req.headers["x-svc-signature"] as string,
      );
      if (!v.ok) {
        res
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "unauthorized", message: v.reason }));
        return;
      }
      if (mode === "kill") {
        // Dies mid-request: the connection is cut after the request was read, before any answer.
        setTimeout(() => req.socket.destroy(), 50);
        return;
      }
      if (mode === "overloaded") {
        res
          .writeHead(503, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "overloaded", message: "queue full" }));
        return;
      }
      const parsed = ScoreRequestSchema.parse(JSON.parse(body));
      if (parsed.numerics_class && parsed.numerics_class !== numericsClass) {
        const message = `computes in ${numericsClass}, not ${parsed.numerics_class}`;
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "model_not_served", message }));
        return;
      }
      const answer = () =>
        endSigned(
          res,
          GPU_SECRET,
          url,
          parsed.request_id,
          JSON.stringify({
            model: parsed.model,
            calibration: "cal-20261121-0",
            answers: mode === "other-bytes" ? otherBytes(uniform(parsed)) : uniform(parsed),
            meter: { tokens_evaluated: 1, tokens_reused: 0 },
            ...(numericsClass && { numerics_class: numericsClass }),
          }),
        );
      if (mode === "slow") setTimeout(answer, 300);
      else answer();
    }),
  );
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    calls: () => calls,
    setMode: (m) => {
      mode = m;
    },
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** What `useMoneyEdge` starts for a suite; read it inside tests (it is filled in `beforeAll`). */
export interface MoneyWorld {
  edge: EdgeWorker;
  /** The first (often only) GPU stand-in. */
  gpu: StandInGpu;
  gpus: StandInGpu[];
  /** Present when asked for with `{ fallback: true }`. */
  fallback: FakeFallback;
}

/**
 * Registers the suite's `beforeAll`/`afterAll`: `gpus` GPU stand-ins (default 1) in `mode`, optionally the
 * fake fallback, and an edge Worker dispatching to them, all stopped after the suite.
 */
export function useMoneyEdge(
  mode: StandInMode,
  opts: { gpus?: number; fallback?: boolean; numericsClasses?: string[] } = {},
): MoneyWorld {
  const world = { gpus: [] as StandInGpu[] } as MoneyWorld;
  beforeAll(async () => {
    world.gpus = await Promise.all(
      Array.from({ length: opts.gpus ?? 1 }, (_, i) => startStandInGpu(mode, opts.numericsClasses?.[i])),
    );
    world.gpu = world.gpus[0] as StandInGpu;
    if (opts.fallback) world.fallback = await startFakeFallback();
    world.edge = await startEdge({
      gpuUrls: world.gpus.map((g) => g.url),
      ...(opts.fallback ? { fallbackUrl: world.fallback.url } : {}),
    });
  });
  afterAll(async () => {
    await world.edge?.stop();
    for (const g of world.gpus) await g.close();
    await world.fallback?.close();
  });
  return world;
}

/** What `useRealModelEdge` starts for a suite (filled in `beforeAll`). */
export interface RealModelWorld {
  edge: EdgeWorker;
  gpu: RunningWorker;
}

/**
 * Registers the suite's `beforeAll`/`afterAll`: one real GPU worker (one thread, a 4,096-token context) serving
 * `versions` (comma-separated exact versions; the small model's load in seconds) and an edge Worker dispatching
 * to it, both stopped after the suite.
 */
export function useRealModelEdge(versions: string): RealModelWorld {
  const world = {} as RealModelWorld;
  beforeAll(async () => {
    world.gpu = await startWorker(
      {
        GPU_SIGNING_SECRET: GPU_SECRET,
        SVC_THREADS: "1",
        SVC_CONTEXT_SIZE: "4096",
        SVC_MODEL_VERSION: versions,
      },
      240_000,
    );
    world.edge = await startEdge({ gpuUrls: [world.gpu.url] });
  }, 240_000);
  afterAll(async () => {
    await world.edge?.stop();
    await world.gpu?.stop();
  });
  return world;
}
