import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { GpuPool, type GpuPoolError } from "../../../workers/clients/gpu-pool";
import { endSigned, endSignedReady } from "../../support/signed-answer";

// A worker that serves only svc-1.3.0 in class `cpu-a` and says so on /readyz, like gpu-worker/src/server.ts.
let calls = 0;
const worker: Server = createServer(async (req, res) => {
  if (req.url === "/readyz") {
    const ready = JSON.stringify({ ready: true, numerics_class: "cpu-a", models: ["svc-1.3.0"] });
    return endSignedReady(res, "secret-secret-secret", url, ready);
  }
  calls++;
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ScoreRequest;
  if (body.model !== "svc-1.3.0") {
    res.writeHead(404, { "content-type": "application/json" });
    return void res.end(JSON.stringify({ error: "model_not_served", message: "svc-1.3.0 only" }));
  }
  const answer = JSON.stringify({
    model: body.model,
    calibration: "cal-20261123-2",
    answers: [],
    meter: { tokens_evaluated: 1, tokens_reused: 0 },
    numerics_class: "cpu-a",
  });
  await endSigned(res, "secret-secret-secret", url, body.request_id, answer);
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((r) => worker.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
});
afterAll(() => {
  worker.closeAllConnections();
  worker.close();
});

const req = (model: string, numerics_class?: string): ScoreRequest => ({
  request_id: `req_${model}`,
  model,
  state: "s",
  questions: [],
  ...(numerics_class && { numerics_class }),
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as GpuPoolError,
  );

describe("the pool routes by what workers advertise (exact versions × numerics class)", () => {
  it("a worker that does not serve a version is not marked down: it serves its own version at once, and is not asked for the other again", async () => {
    const pool = new GpuPool([url], "secret-secret-secret");
    expect((await failure(pool.score(req("svc-1.4.0"))))?.reason).toBe("no_capacity");
    expect(calls).toBe(1);
    expect((await pool.score(req("svc-1.3.0"))).numerics_class).toBe("cpu-a");
    expect((await failure(pool.score(req("svc-1.4.0"))))?.reason).toBe("no_capacity");
    expect(calls).toBe(2);
  });

  it("a replay pinned to another class never reaches the worker; pinned to its class it is served", async () => {
    const pool = new GpuPool([url], "secret-secret-secret");
    const before = calls;
    expect((await failure(pool.score(req("svc-1.3.0", "cuda-b"))))?.reason).toBe("no_capacity");
    expect(calls).toBe(before);
    expect((await pool.score(req("svc-1.3.0", "cpu-a"))).model).toBe("svc-1.3.0");
    expect(calls).toBe(before + 1);
  });
});
