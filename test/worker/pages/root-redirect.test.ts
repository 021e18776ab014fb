import { describe, expect, it } from "vitest";
import { acceptsHtml } from "../../../workers/pages/root-redirect";
import { call, expectError } from "../../support/worker-http";

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("GET / from a browser goes to the console; everything else at / keeps its answer", () => {
  it("GET / with accept text/html: 302 to /console/", async () => {
    const res = await call("GET", "/", { headers: { accept: BROWSER }, redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/console/");
    const follow = await call("GET", "/console/", { headers: { accept: BROWSER } });
    expect(follow.status).toBe(200);
    expect(follow.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("GET / without HTML in accept, and other methods, keep the JSON 404", async () => {
    await expectError(
      await call("GET", "/", { headers: { accept: "application/json" } }),
      404,
      "route_not_found",
    );
    await expectError(await call("GET", "/"), 404, "route_not_found");
    await expectError(await call("POST", "/", { headers: { accept: BROWSER } }), 404, "route_not_found");
    await expectError(
      await call("GET", "/", { headers: { accept: "text/html;q=0" } }),
      404,
      "route_not_found",
    );
    // Other paths are untouched: an unknown /v1 path stays JSON even for a browser.
    await expectError(
      await call("GET", "/v1/nope", { headers: { accept: BROWSER } }),
      404,
      "route_not_found",
    );
  });

  it("reads accept's quality values", () => {
    expect(acceptsHtml("TEXT/HTML")).toBe(true);
    expect(acceptsHtml("application/json, text/html;q=0.1")).toBe(true);
    expect(acceptsHtml("text/html; q=0")).toBe(false);
    expect(acceptsHtml("*/*")).toBe(false);
    expect(acceptsHtml(undefined)).toBe(false);
  });
});
