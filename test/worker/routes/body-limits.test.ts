import { describe, expect, it } from "vitest";
import { call, expectError } from "../../support/worker-http";

const MIB = 1024 * 1024;
const ADMIN = { authorization: "Bearer test-admin-token", "content-type": "application/json" };

/** A 32 MiB body in 64 KiB chunks (no content-length); counts what the Worker pulled. */
function endless(): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (pulled >= 32 * MIB) return ctrl.close();
      pulled += 64 * 1024;
      ctrl.enqueue(new Uint8Array(64 * 1024).fill(0x20));
    },
  });
  return { body, pulled: () => pulled };
}

/** A JSON object of exactly `n` bytes. */
const jsonOfSize = (n: number) => `{"pad":"${"x".repeat(n - 10)}"}`;

describe("issue 45 item 4: every body outside the decide path's limits is read as a stream, at most 1 MiB (413 body_too_large beyond), before any signature check or parse", () => {
  it("POST /v1/webhooks/stripe: an unsigned 1 MiB + 1 byte body → 413, before the signature check", async () => {
    const res = await call("POST", "/v1/webhooks/stripe", {
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
      body: jsonOfSize(MIB + 1),
    });
    await expectError(res, 413, "body_too_large");
  });

  it("POST /v1/webhooks/stripe: a 32 MiB chunked body is cut off at 1 MiB, never read to the end", async () => {
    const { body, pulled } = endless();
    const res = await call("POST", "/v1/webhooks/stripe", {
      headers: { "content-type": "application/json" },
      body,
    });
    await expectError(res, 413, "body_too_large");
    expect(pulled()).toBeLessThan(4 * MIB);
  });

  it("POST /v1/webhooks/stripe: 1 MiB exactly is read, then its bad signature → 400 invalid_header", async () => {
    const res = await call("POST", "/v1/webhooks/stripe", {
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
      body: jsonOfSize(MIB),
    });
    await expectError(res, 400, "invalid_header", "stripe-signature");
  });

  it("POST /internal/ledger/credit: 1 MiB + 1 byte → 413 before the JSON is parsed; a 32 MiB chunked body is cut off", async () => {
    await expectError(
      await call("POST", "/internal/ledger/credit", { headers: ADMIN, body: jsonOfSize(MIB + 1) }),
      413,
      "body_too_large",
    );
    const { body, pulled } = endless();
    await expectError(
      await call("POST", "/internal/ledger/credit", { headers: ADMIN, body }),
      413,
      "body_too_large",
    );
    expect(pulled()).toBeLessThan(4 * MIB);
  });

  it("PUT /internal/maintenance: a 32 MiB chunked body is cut off (the console's 256 KiB)", async () => {
    const { body, pulled } = endless();
    await expectError(
      await call("PUT", "/internal/maintenance", { headers: ADMIN, body }),
      413,
      "body_too_large",
    );
    expect(pulled()).toBeLessThan(4 * MIB);
  });
});
