import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../../gpu-worker/src/engine";
import { selfUrl } from "../../../gpu-worker/src/self-url";
import { createWorkerServer } from "../../../gpu-worker/src/server";
import { READY_REQUEST_ID, signRequest, verifyAnswer } from "../../../schema/signing";

const SECRET = "worker-secret-worker";
// An engine stand-in: the server's signing and routing are under test, not the scoring.
const engine = {
  scorer: { numerics: { id: "cpu-test" } },
  prepare: () => ({}),
  score: async () => ({
    model: "svc-1.4.0",
    calibration: "cal-20261123-2",
    answers: [],
    meter: { tokens_evaluated: 1, tokens_reused: 0 },
  }),
} as unknown as Engine;
const engines = new Map([["svc-1.4.0", engine]]);

/** A worker that believes it is reached at `origin`, its public and ops servers on free loopback ports. */
async function start(origin: () => string, opsOnPublic: boolean) {
  const w = createWorkerServer(
    { secret: SECRET, origin, opsOnPublic, sequences: 1, queueMax: 4 },
    () => engines,
  );
  const listen = async (s: Server) => {
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };
  return { ...w, url: await listen(w.server), opsUrl: await listen(w.opsServer) };
}

let a: Awaited<ReturnType<typeof start>>;
let b: Awaited<ReturnType<typeof start>>;
beforeAll(async () => {
  // Off loopback in production: the public port answers signed calls only; the ops port serves the rest.
  let aUrl = "";
  let bUrl = "";
  a = await start(() => aUrl, false);
  b = await start(() => bUrl, false);
  aUrl = a.url;
  bUrl = b.url;
});
afterAll(() => {
  for (const w of [a, b])
    for (const s of [w.server, w.opsServer]) {
      s.closeAllConnections();
      s.close();
    }
});

const bodyOf = (request_id: string) =>
  JSON.stringify({
    request_id,
    model: "svc-1.4.0",
    state: "s",
    questions: [{ id: "q", type: "check", instructions: "Ready?", criteria: [] }],
  });
const body = bodyOf("req_w");
const post = (url: string, headers: Record<string, string>, b = body) =>
  fetch(`${url}/v1/score`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: b,
  });

describe("issue 45 item 6: the GPU worker binds calls to its own URL and signs its answers", () => {
  it("a call signed for worker A, replayed to worker B within the window, is refused 401 (the URL is signed)", async () => {
    const headers = await signRequest(SECRET, { method: "POST", origin: a.url, path: "/v1/score", body });
    expect((await post(b.url, headers)).status).toBe(401);
    expect((await post(a.url, headers)).status).toBe(200);
    expect((await post(a.url, headers)).status, "the same call twice").toBe(401);
  });

  it("its answer is signed for its origin and the call's request id, over the body's bytes", async () => {
    const b2 = bodyOf("req_w2");
    const headers = await signRequest(SECRET, { method: "POST", origin: a.url, path: "/v1/score", body: b2 });
    const res = await post(a.url, headers, b2);
    const text = await res.text();
    const ts = res.headers.get("x-svc-timestamp");
    const sig = res.headers.get("x-svc-signature");
    expect(await verifyAnswer(SECRET, { origin: a.url, requestId: "req_w2", body: text }, ts, sig)).toEqual({
      ok: true,
    });
    expect((await verifyAnswer(SECRET, { origin: b.url, requestId: "req_w2", body: text }, ts, sig)).ok).toBe(
      false,
    );
  });

  it("/metrics and an unsigned /readyz are not on the public port: the ops port serves them (kubelet, Prometheus)", async () => {
    expect((await fetch(`${a.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${a.url}/readyz`)).status).toBe(401);
    expect((await fetch(`${a.opsUrl}/metrics`)).status).toBe(200);
    expect((await fetch(`${a.opsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${a.opsUrl}/livez`)).status).toBe(200);
    expect((await fetch(`${a.opsUrl}/v1/score`, { method: "POST", body })).status).toBe(404);
  });

  it("the edge's /readyz probe is a signed call for this worker, answered signed", async () => {
    const headers = await signRequest(SECRET, { method: "GET", origin: a.url, path: "/readyz", body: "" });
    expect((await fetch(`${b.url}/readyz`, { headers })).status).toBe(401);
    const res = await fetch(`${a.url}/readyz`, { headers });
    expect(res.status).toBe(200);
    const text = await res.text();
    const parts = { origin: a.url, requestId: READY_REQUEST_ID, body: text };
    expect(
      await verifyAnswer(
        SECRET,
        parts,
        res.headers.get("x-svc-timestamp"),
        res.headers.get("x-svc-signature"),
      ),
    ).toEqual({ ok: true });
  });

  it("a worker's own URL must be https (http only on loopback); off loopback it must be set", () => {
    expect(selfUrl({ workerUrl: "https://gpu-1.example.com/", host: "0.0.0.0" }, 8788)).toBe(
      "https://gpu-1.example.com",
    );
    expect(selfUrl({ host: "127.0.0.1" }, 4000)).toBe("http://127.0.0.1:4000");
    expect(() => selfUrl({ workerUrl: "http://gpu-1.example.com", host: "0.0.0.0" }, 8788)).toThrow(/https/);
    expect(() => selfUrl({ host: "0.0.0.0" }, 8788)).toThrow(/SVC_WORKER_URL/);
  });
});
