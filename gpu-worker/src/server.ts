import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type EngineError, ScoreRequest } from "../../schema/engine-protocol";
import {
  READY_REQUEST_ID,
  SIGNATURE_HEADER,
  SignatureVerifier,
  signAnswer,
  TIMESTAMP_HEADER,
} from "../../schema/signing";
import { CancelledError, withCancellation } from "./cancel";
import { type Engine, TooManyTokensError } from "./engine";
import { errorText, logEvent } from "./log";
import { Metrics } from "./metrics";
import type { PreparedRequest, ScorerLoad } from "./scorer";

export interface ServerOptions {
  /** Shared HMAC secret (GPU_SIGNING_SECRET). */
  secret: string;
  /** The base URL the edge calls this worker at (its origin is in every signature, both ways); read per call. */
  origin: () => string;
  /**
   * Whether the public port also answers `/metrics` and an unsigned `/readyz` (a worker bound to a loopback
   * address: local development and tests). Otherwise they are on the ops server only, and the public
   * `/readyz` answers signed calls alone.
   */
  opsOnPublic?: boolean;
  /** Sequences per lane of a scorer. */
  sequences: number;
  /** Lanes per scorer (default 1): requests that hold a sequence at once = sequences × lanes. */
  lanes?: number;
  /** Requests that may wait for a sequence; one more gets 503 `overloaded`. */
  queueMax: number;
  /** Largest accepted body in bytes. */
  bodyLimit?: number;
}

/** Response header of a score answer: the version's `ScorerLoad` as JSON (speed, queued work, lanes). */
export const LOAD_HEADER = "x-svc-engine-load";

type ErrorCode = EngineError["error"];
const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  model_not_served: 404,
  too_many_tokens: 413,
  overloaded: 503,
  internal: 500,
};

class HttpError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status = STATUS[code],
  ) {
    super(message);
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type = "application/json",
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Per version served: its scorer's measured speed and queued work (`ScorerLoad`), for deadlines and refusals. */
export function loadOf(engines: ReadonlyMap<string, Engine>): Record<string, ScorerLoad> {
  const out: Record<string, ScorerLoad> = {};
  for (const [v, e] of engines) {
    const l = e.scorer.load?.();
    if (l) out[v] = l;
  }
  return out;
}

/** A counter summed over every scorer of the worker (once per scorer, which may serve several versions). */
function sumOverScorers(
  engines: ReadonlyMap<string, Engine> | null,
  count: (s: Engine["scorer"]) => number | undefined,
): number {
  const scorers = new Set([...(engines?.values() ?? [])].map((e) => e.scorer));
  return [...scorers].reduce((n, s) => n + (count(s) ?? 0), 0);
}

/**
 * `/readyz`: 200 once warmed, with what the pool routes by (the exact versions served and the numerics class
 * they are computed in) and, per version, the measured speed and queued work (`load`); 503 while loading.
 */
function readiness(engines: ReadonlyMap<string, Engine> | null): { status: number; body: string } {
  const first = engines?.values().next().value;
  if (!engines || !first) return { status: 503, body: '{"ready":false}' };
  const body = {
    ready: true,
    numerics_class: first.scorer.numerics.id,
    models: [...engines.keys()],
    load: loadOf(engines),
  };
  return { status: 200, body: JSON.stringify(body) };
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new HttpError("bad_request", `body over ${limit} bytes`, 413);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError("bad_request", `body over ${limit} bytes`, 413);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The GPU worker's HTTP surface. Public (`server`, the port the edge calls): `POST /v1/score` and `GET /readyz`,
 * both signed calls with signed answers, and `GET /livez`. Ops (`opsServer`, a port the gateway does not
 * route, for the kubelet and Prometheus): `GET /livez`, `GET /readyz`, `GET /metrics`, unsigned.
 * `getEngines` gives null until the model is loaded and warmed (score calls answer 503 until then), then one
 * engine per exact version served (versions of one model file share its scorer, each with its calibration).
 */
export function createWorkerServer(
  opts: ServerOptions,
  getEngines: () => ReadonlyMap<string, Engine> | null,
): { server: Server; opsServer: Server; metrics: Metrics; drain(): Promise<void> } {
  const metrics = new Metrics();
  // Set by drain() on SIGTERM: new calls are refused (the pool fails over), the ones in flight finish.
  let draining = false;
  let drained: (() => void) | null = null;
  // Made at the first call: a worker on PORT=0 knows its own URL only once it listens.
  let verifierOf: SignatureVerifier | null = null;
  const verifier = () => {
    verifierOf ??= new SignatureVerifier(opts.secret, opts.origin());
    return verifierOf;
  };
  const signed = (requestId: string, body: string) =>
    signAnswer(opts.secret, { origin: opts.origin(), requestId, body });
  const limit = opts.bodyLimit ?? 1024 * 1024;
  let inFlight = 0;
  const slots = opts.sequences * Math.max(1, opts.lanes ?? 1);
  const track = (delta: number) => {
    inFlight += delta;
    metrics.inFlight = inFlight;
    metrics.queueDepth = Math.max(0, inFlight - slots);
    if (inFlight === 0) drained?.();
  };

  async function score(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    // Refuse early (before the signature is verified and so spent) when the call cannot be served anyway.
    if (draining) throw new HttpError("overloaded", "shutting down");
    if (!getEngines()) throw new HttpError("overloaded", "model is still loading");
    if (inFlight >= slots + opts.queueMax) throw new HttpError("overloaded", "queue full");
    const body = await readBody(req, limit);
    const verdict = await verifier().verify(
      { method: "POST", path: "/v1/score", body: new Uint8Array(body) },
      req.headers[TIMESTAMP_HEADER] as string | undefined,
      req.headers[SIGNATURE_HEADER] as string | undefined,
    );
    if (!verdict.ok) throw new HttpError("unauthorized", `signature ${verdict.reason}`);
    const engines = getEngines();
    if (!engines) throw new HttpError("overloaded", "model is still loading");
    let json: unknown;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      throw new HttpError("bad_request", "body is not valid JSON");
    }
    const parsed = ScoreRequest.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new HttpError(
        "bad_request",
        `invalid ScoreRequest at ${issue?.path.join(".") || "body"}: ${issue?.message}`,
      );
    }
    const engine = engines.get(parsed.data.model);
    if (!engine)
      throw new HttpError(
        "model_not_served",
        `this worker serves ${[...engines.keys()].join(", ")}, not ${parsed.data.model}`,
      );
    const numerics = engine.scorer.numerics.id;
    const wanted = parsed.data.numerics_class;
    if (wanted !== undefined && wanted !== numerics)
      throw new HttpError(
        "model_not_served",
        `this worker computes ${parsed.data.model} in numerics class ${numerics}, not ${wanted}`,
      );
    let prepared: PreparedRequest;
    try {
      prepared = engine.prepare(parsed.data);
    } catch (err) {
      if (err instanceof TooManyTokensError) throw new HttpError("too_many_tokens", err.message);
      throw err;
    }
    if (inFlight >= slots + opts.queueMax) throw new HttpError("overloaded", "queue full");
    track(1);
    // The caller going away (the edge's deadline, or its client disconnecting) cancels the request at its next
    // decode boundary: its sequence and lane are freed for the others.
    const cancel = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) cancel.abort();
    });
    try {
      const out = await withCancellation(cancel.signal, () => engine.score(parsed.data, prepared));
      const at = { version: parsed.data.model, numerics_class: numerics };
      metrics.tokens(out.meter.tokens_evaluated, out.meter.tokens_reused, at);
      metrics.request("ok", (performance.now() - started) / 1000, at);
      // The version's speed and queued work after this answer, in a header so the body stays byte-identical
      // across replays: the edge's next deadline and refusal use them.
      const load = engine.scorer.load?.();
      if (load) res.setHeader(LOAD_HEADER, JSON.stringify(load));
      const answer = JSON.stringify({ ...out, numerics_class: numerics });
      send(res, 200, answer, "application/json", await signed(parsed.data.request_id, answer));
    } finally {
      track(-1);
    }
  }

  /**
   * `GET /readyz` on the public port: a call signed for this worker (not remembered: a read), answered signed;
   * unsigned only where the public port also serves the ops routes (loopback).
   */
  async function signedReadiness(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ts = req.headers[TIMESTAMP_HEADER] as string | undefined;
    const sig = req.headers[SIGNATURE_HEADER] as string | undefined;
    const { status, body } = readiness(draining ? null : getEngines());
    if (!ts && !sig && opts.opsOnPublic) return send(res, status, body);
    const verdict = await verifier().verify(
      { method: "GET", path: "/readyz", body: "" },
      ts,
      sig,
      undefined,
      false,
    );
    if (!verdict.ok) throw new HttpError("unauthorized", `signature ${verdict.reason}`);
    send(res, status, body, "application/json", status === 200 ? await signed(READY_REQUEST_ID, body) : {});
  }

  const opsRoute = (route: string, res: ServerResponse): boolean => {
    if (route === "GET /livez") send(res, 200, '{"ok":true}');
    else if (route === "GET /readyz") {
      const { status, body } = readiness(draining ? null : getEngines());
      send(res, status, body);
    } else if (route === "GET /metrics") {
      metrics.prefixTokensKept = sumOverScorers(getEngines(), (s) => s.keptTokens?.());
      metrics.requestsSpread = sumOverScorers(getEngines(), (s) => s.spreadRequests?.());
      metrics.schedulers = [...new Set([...(getEngines()?.values() ?? [])].map((e) => e.scorer))].flatMap(
        (s) => s.schedulerStats?.() ?? [],
      );
      send(res, 200, metrics.render(), "text/plain; version=0.0.4");
    } else return false;
    return true;
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const route = `${req.method} ${path}`;
    const handle = async () => {
      if (route === "GET /livez") return send(res, 200, '{"ok":true}');
      if (route === "GET /readyz") return signedReadiness(req, res);
      if (route === "GET /metrics" && opts.opsOnPublic) return void opsRoute(route, res);
      if (route === "POST /v1/score") return score(req, res);
      throw new HttpError("bad_request", `no route ${route}`, 404);
    };
    handle().catch((err: unknown) => {
      if (err instanceof CancelledError) {
        metrics.request("cancelled");
        return res.destroy();
      }
      const e = err instanceof HttpError ? err : new HttpError("internal", "internal error");
      if (!(err instanceof HttpError)) logEvent("error", "unhandled_error", { route, error: errorText(err) });
      if (route === "POST /v1/score") metrics.request(e.code);
      if (res.headersSent) return res.end();
      const out: EngineError = { error: e.code, message: e.message };
      send(res, e.status, JSON.stringify(out));
      // Drain an unread body so the connection stays usable; never wait on it.
      req.resume();
    });
  });
  const opsServer = createServer((req, res) => {
    const route = `${req.method} ${(req.url ?? "/").split("?")[0]}`;
    if (!opsRoute(route, res))
      send(res, 404, JSON.stringify({ error: "bad_request", message: `no route ${route}` }));
  });
  function drain(): Promise<void> {
    draining = true;
    return inFlight === 0 ? Promise.resolve() : new Promise((resolve) => (drained = resolve));
  }
  return { server, opsServer, metrics, drain };
}
