import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "../../../workers/app";
import type { Env } from "../../../workers/env";
import { envProblems } from "../../../workers/middleware/env-check";
import { expectError } from "../../support/worker-http";

const base = env as unknown as Env;

afterEach(() => vi.restoreAllMocks());

describe("the Worker's variables are checked at the entry (zod)", () => {
  it("the test environment, and every variable left empty, is valid", () => {
    expect(envProblems(base)).toBeNull();
    const empty = Object.fromEntries(Object.keys(base).map((k) => [k, k === "LEDGER" ? base.LEDGER : ""]));
    expect(envProblems(empty as unknown as Env)).toBeNull();
  });

  it.each([
    ["DATABASE_URL", "mysql://u:p@db/x"],
    ["DATABASE_URL", "not a url"],
    ["NEON_HTTP_ENDPOINT", "ftp://127.0.0.1/sql"],
    ["UPSTASH_REDIS_REST_URL", "127.0.0.1:8079"],
    ["GPU_POOL_URLS", "http://127.0.0.1:8788,gpu-2:8788"],
    // issue 45 item 6: a plain-text hop off loopback would carry customer states in clear.
    ["GPU_POOL_URLS", "https://gpu-1.example.com,http://gpu-2.example.com:8788"],
    ["GPU_SIGNING_SECRET", "short"],
    ["FALLBACK_BASE_URL", "eu.example"],
    ["ADMIN_TOKEN", "short"],
    ["NEON_WS_PROXY", "ws proxy"],
  ])(
    "%s = %j → every request answers 500 internal_error; the log names the variable, never its value",
    async (name, value) => {
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const res = await app.request("/v1/models", {}, { ...base, [name]: value });
      await expectError(res, 500, "internal_error");
      const line = log.mock.calls.map((c) => c.join(" ")).join("\n");
      expect(line).toContain(name);
      expect(line).not.toContain(value);
    },
  );

  it("a valid comma-separated GPU pool passes", () => {
    const e = { ...base, GPU_POOL_URLS: "http://127.0.0.1:8788, https://gpu-2.internal:8443" };
    expect(envProblems(e as Env)).toBeNull();
  });
});
