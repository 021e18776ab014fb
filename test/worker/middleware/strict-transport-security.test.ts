import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../workers/app";
import type { Env } from "../../../workers/env";
import { consoleCall, signIn } from "../../support/console";

const base = env as unknown as Env;
const HSTS = "max-age=63072000; includeSubDomains";

describe("issue 45 item 8: Strict-Transport-Security (two years, includeSubDomains) on every response the Worker serves", () => {
  it.each([
    ["GET", "/livez", 200],
    ["GET", "/v1/models", 401],
    ["GET", "/v1/nope", 404],
    ["PATCH", "/v1/models", 405],
    ["GET", "/", 404],
    ["GET", "/console", 301],
    ["GET", "/console/", 200],
    ["GET", "/console/no-such-page", 404],
    ["GET", "/console/assets/missing.js", 404],
    ["GET", "/v1/openapi.json", 200],
    ["OPTIONS", "/v1/plans", 204],
    ["GET", "/v1/console/session", 401],
    ["POST", "/v1/console/auth/codes", 400],
  ])("%s %s (%i) carries it", async (method, path, status) => {
    const res = await app.request(
      `https://svc.test${path}`,
      { method, headers: { origin: "https://m.test" } },
      base,
    );
    expect(res.status).toBe(status);
    expect(res.headers.get("strict-transport-security")).toBe(HSTS);
  });

  it("a misconfigured Worker's 500 and a signed-in console answer carry it too", async () => {
    const broken = await app.request("https://svc.test/v1/models", {}, { ...base, ADMIN_TOKEN: "short" });
    expect(broken.status).toBe(500);
    expect(broken.headers.get("strict-transport-security")).toBe(HSTS);
    const page = await app.request("https://svc.test/", { headers: { accept: "text/html" } }, base);
    expect(page.status).toBe(302);
    expect(page.headers.get("strict-transport-security")).toBe(HSTS);
    const s = await signIn();
    const res = await consoleCall("GET", "/v1/console/session", { cookie: s.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("strict-transport-security")).toBe(HSTS);
  });
});
