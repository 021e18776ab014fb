// The SDK is fetch only: here it runs inside workerd (the Workers runtime) against the Worker itself.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isSvcError, SvcClient } from "../../../sdk/src/index";
import { BASE, seed } from "../../support/worker-http";

describe("@svc/sdk runs in a Worker (workerd), not only in Node", () => {
  it("reads the key, the limits and the plan list, and types an error", async () => {
    const acct = await seed({ keys: [{ mode: "test", scopes: ["decide"] }] });
    const svc = new SvcClient({
      baseUrl: BASE,
      apiKey: acct.keys[0]!.secret,
      fetch: (input, init) => SELF.fetch(input as string, init),
      maxRetries: 0,
    });
    expect((await svc.getKey()).mode).toBe("test");
    expect((await svc.listModels()).data.some((m) => m.alias === "svc-1")).toBe(true);
    const err = await svc.getBalance().catch((e: unknown) => e);
    expect(isSvcError(err, "permission")).toBe(true);
    expect(err).toMatchObject({ code: "insufficient_scope" });
  });
});
