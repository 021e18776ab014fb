import { describe, expect, it } from "vitest";
import { hmacHex, workerOrigin } from "../../../schema/signing";

describe("signing: an imported HMAC key and a parsed origin are reused, never confused", () => {
  it("HMAC-SHA-256 answers RFC 4231's vector on the first call and on the cached key, per secret", async () => {
    const jefe = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    expect(await hmacHex("Jefe", "what do ya want for nothing?")).toBe(jefe);
    expect(await hmacHex("Jefe", "what do ya want for nothing?")).toBe(jefe);
    expect(await hmacHex("Jeff", "what do ya want for nothing?")).not.toBe(jefe);
    const many = await Promise.all(Array.from({ length: 100 }, (_, i) => hmacHex(`s${i}`, "m")));
    expect(new Set(many).size).toBe(100);
    expect(await hmacHex("Jefe", "what do ya want for nothing?")).toBe(jefe);
  });

  it("a worker's origin is its URL's, each URL its own", () => {
    expect(workerOrigin("https://gpu-1.example.com:8443/v1/score")).toBe("https://gpu-1.example.com:8443");
    expect(workerOrigin("https://gpu-1.example.com:8443/v1/score")).toBe("https://gpu-1.example.com:8443");
    expect(workerOrigin("https://gpu-2.example.com/")).toBe("https://gpu-2.example.com");
    expect(() => workerOrigin("not a url")).toThrow();
  });
});
