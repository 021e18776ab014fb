// Issue 50 item 4: locally, a client-sent `cf-connecting-ip` must not choose the client network the limits
// count; only the address of the connection (what Cloudflare's edge reports in production) does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { fetchFrom, loopbackNetwork } from "../../support/loopback-source";
import { startEdge } from "../../support/money-harness";

let edge: EdgeWorker;

beforeAll(async () => {
  edge = await startEdge({ bindings: { CONSOLE_SECRET: "integration-console-secret-0123456789" } });
});

afterAll(async () => {
  await edge?.stop();
});

const forged = (i: number) => `203.0.${i}.9`;

async function wrongTry(from: typeof fetch, headers: Record<string, string> = {}) {
  const res = await from(`${edge.url}/v1/console/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email: `nobody-${crypto.randomUUID()}@example.com`, code: "12345678" }),
  });
  return { status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code };
}

describe("the local stack trusts only the address the runtime set", () => {
  it("'a client-sent cf-connecting-ip is trusted' no more: 21 tries each naming another network are one network's 21 tries (429 sign_in_tries_per_network)", async () => {
    const attacker = fetchFrom(loopbackNetwork());
    for (let i = 0; i < 20; i++)
      expect(await wrongTry(attacker, { "cf-connecting-ip": forged(i) })).toEqual({
        status: 401,
        code: "invalid_code",
      });
    expect(await wrongTry(attacker, { "cf-connecting-ip": forged(20) })).toEqual({
      status: 429,
      code: "sign_in_tries_per_network",
    });
    // Another real network (another source address) is not slowed.
    expect(await wrongTry(fetchFrom(loopbackNetwork()))).toEqual({ status: 401, code: "invalid_code" });
  });
});

describe("an early 413 reaches the client through the local front", () => {
  it("'the local Worker did not answer' (502) no more: a 311 KB body declared over the 256 KiB limit is answered 413 body_too_large, 30 times in a row", async () => {
    const body = JSON.stringify({ email: "x@example.com", code: "1".repeat(311 * 1024) });
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${edge.url}/v1/console/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(res.status, `try ${i}`).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("body_too_large");
    }
  });
});
