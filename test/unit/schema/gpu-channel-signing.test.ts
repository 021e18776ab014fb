import { describe, expect, it } from "vitest";
import * as signing from "../../../schema/signing";
import { SignatureVerifier, signRequest } from "../../../schema/signing";

const SECRET = "pool-secret-pool-secret";
const A = "https://gpu-a.example.com";
const B = "https://gpu-b.example.com";
const body = '{"request_id":"req_1","model":"svc-1.4.0"}';

describe("issue 45 item 6: the edge ↔ GPU worker channel is bound to the worker and signed both ways", () => {
  it("the worker's own URL is in the signed string: a call captured on its way to worker A is refused by worker B", async () => {
    const call = { method: "POST", origin: A, path: "/v1/score", body };
    const headers = await signRequest(SECRET, call);
    const atB = new SignatureVerifier(SECRET, B);
    const v = await atB.verify(call, headers["x-svc-timestamp"], headers["x-svc-signature"]);
    expect(v).toEqual({ ok: false, reason: "bad_signature" });
    const atA = new SignatureVerifier(SECRET, A);
    expect(await atA.verify(call, headers["x-svc-timestamp"], headers["x-svc-signature"])).toEqual({
      ok: true,
    });
    expect(await atA.verify(call, headers["x-svc-timestamp"], headers["x-svc-signature"])).toEqual({
      ok: false,
      reason: "replayed",
    });
  });

  it("the worker's answer is signed (body, timestamp, request id): a forged or moved answer is refused", async () => {
    const { signAnswer, verifyAnswer } = signing as unknown as {
      signAnswer?: typeof import("../../../schema/signing").signAnswer;
      verifyAnswer?: typeof import("../../../schema/signing").verifyAnswer;
    };
    expect(signAnswer, "answers are signed").toBeTypeOf("function");
    if (!signAnswer || !verifyAnswer) return;
    const answer = '{"answers":[{"id":"q","probability":0.9}]}';
    const h = await signAnswer(SECRET, { origin: A, requestId: "req_1", body: answer });
    const ts = h["x-svc-timestamp"];
    const sig = h["x-svc-signature"];
    expect(await verifyAnswer(SECRET, { origin: A, requestId: "req_1", body: answer }, ts, sig)).toEqual({
      ok: true,
    });
    const forged = answer.replace("0.9", "0.1");
    for (const parts of [
      { origin: A, requestId: "req_1", body: forged },
      { origin: A, requestId: "req_2", body: answer },
      { origin: B, requestId: "req_1", body: answer },
    ])
      expect((await verifyAnswer(SECRET, parts, ts, sig)).ok).toBe(false);
    expect(await verifyAnswer(SECRET, { origin: A, requestId: "req_1", body: answer }, null, null)).toEqual({
      ok: false,
      reason: "missing",
    });
    const old = await signAnswer(SECRET, { origin: A, requestId: "req_1", body: answer }, 1_000);
    expect(
      (
        await verifyAnswer(
          SECRET,
          { origin: A, requestId: "req_1", body: answer },
          old["x-svc-timestamp"],
          old["x-svc-signature"],
        )
      ).ok,
    ).toBe(false);
  });

  it("https only: plain http is allowed on loopback addresses alone (local development)", () => {
    const allowed = (signing as { isAllowedWorkerUrl?: (u: string) => boolean }).isAllowedWorkerUrl;
    expect(allowed, "the rule exists").toBeTypeOf("function");
    if (!allowed) return;
    for (const u of [
      "https://gpu-1.example.com",
      "https://10.0.0.5:8443",
      "http://127.0.0.1:8788",
      "http://localhost:8788",
      "http://[::1]:8788",
    ])
      expect(allowed(u), u).toBe(true);
    for (const u of [
      "http://gpu-1.example.com",
      "http://10.0.0.5:8788",
      "http://127.0.0.1.evil.example:80",
      "ftp://127.0.0.1",
      "https://u:p@gpu.example.com",
      "gpu-2:8788",
    ])
      expect(allowed(u), u).toBe(false);
  });
});
