import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { type GpuAdvert, signAdvert, verifyAdvert } from "../../../schema/gpu-registry";
import { GpuPool } from "../../../workers/clients/gpu-pool";
import { staticSource } from "../../../workers/clients/gpu-registry";
import { endSigned } from "../../support/signed-answer";

const SECRET = "channel-secret-channel";
const answerOf = (probability: number) =>
  JSON.stringify({
    model: "svc-1.4.0",
    calibration: "cal-20261123-2",
    answers: [{ id: "q", answer: { type: "check", probability, confidence: 0.5, abstained: false } }],
    meter: { tokens_evaluated: 1, tokens_reused: 0 },
  });

/** `sign`: how the worker signs its answers (a man in the middle rewrites them, or signs for another call). */
function worker(sign: "honest" | "none" | "tampered" | "other-request"): Server & { calls: number } {
  const server = createServer(async (req, res) => {
    server.calls++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const { request_id } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ScoreRequest;
    const self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (sign === "none")
      return void res.writeHead(200, { "content-type": "application/json" }).end(answerOf(0.99));
    if (sign === "other-request") return endSigned(res, SECRET, self, "req_other", answerOf(0.99));
    if (sign === "honest") return endSigned(res, SECRET, self, request_id, answerOf(0.25));
    // Signed by the worker, then rewritten on the way: the signature no longer holds for the body.
    const signed = await import("../../../schema/signing").then((s) =>
      s.signAnswer(SECRET, { origin: self, requestId: request_id, body: answerOf(0.25) }),
    );
    res.writeHead(200, { "content-type": "application/json", ...signed }).end(answerOf(0.99));
  }) as Server & { calls: number };
  server.calls = 0;
  return server;
}

const forgers = { none: worker("none"), tampered: worker("tampered"), other: worker("other-request") };
const honest = worker("honest");
const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
beforeAll(async () => {
  for (const s of [...Object.values(forgers), honest])
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
});
afterAll(() => {
  for (const s of [...Object.values(forgers), honest]) {
    s.closeAllConnections();
    s.close();
  }
});

const req: ScoreRequest = { request_id: "req_channel", model: "svc-1.4.0", state: "s", questions: [] };

describe("issue 45 item 6: the edge checks the worker's answer before using or billing it", () => {
  it.each(Object.keys(forgers) as (keyof typeof forgers)[])(
    "an answer %s-signed (forged on a plain-text hop) is never used: that worker counts as failed, the next one answers",
    async (kind) => {
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const pool = new GpuPool([url(forgers[kind]), url(honest)], SECRET);
      const out = await pool.score(req);
      expect(out.answers[0]?.answer).toMatchObject({ probability: 0.25 });
      const before = forgers[kind].calls;
      await pool.score(req);
      expect(forgers[kind].calls, "backed off after the bad answer").toBe(before);
      expect(log.mock.calls.join("\n")).toContain('"event":"gpu_answer_refused"');
      log.mockRestore();
    },
  );
});

describe("issue 45 item 6: https only for GPU_POOL_URLS and registry adverts (loopback excepted)", () => {
  it("GPU_POOL_URLS: an http:// worker off loopback is never called", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const members = staticSource([
      "http://gpu-1.example.com:8788",
      "https://gpu-2.example.com",
      "http://127.0.0.1:8788",
    ]);
    expect((members.members() as { url: string }[]).map((m) => m.url)).toEqual([
      "https://gpu-2.example.com",
      "http://127.0.0.1:8788",
    ]);
    log.mockRestore();
  });

  it("a registry advert of an http:// worker off loopback is refused, even signed with the pool's secret", async () => {
    const advert = (u: string): GpuAdvert => ({
      v: 1,
      url: u,
      numerics_class: "cpu-a",
      models: ["svc-1.4.0"],
      in_flight: 0,
      queue_depth: 0,
      sequences: 2,
      queue_max: 16,
      announced_at: 1,
      expires_at: 2,
    });
    const plain = "http://gpu-1.example.com:8788";
    expect(await verifyAdvert(SECRET, plain, await signAdvert(SECRET, advert(plain)))).toBeNull();
    const tls = "https://gpu-1.example.com";
    expect(await verifyAdvert(SECRET, tls, await signAdvert(SECRET, advert(tls)))).not.toBeNull();
  });
});
