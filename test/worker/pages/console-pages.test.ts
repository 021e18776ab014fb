import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const BASE = "http://svc.test";
const navigate = (path: string) =>
  SELF.fetch(`${BASE}${path}`, {
    headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    redirect: "manual",
  });

function cspOf(res: Response): Map<string, string> {
  const csp = res.headers.get("content-security-policy") ?? "";
  return new Map(
    csp.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values.join(" ")];
    }),
  );
}

describe("console pages (served by the API's Worker under /console/)", () => {
  for (const path of [
    "/console/",
    "/console/sign-in",
    "/console/keys",
    "/console/usage",
    "/console/billing",
    "/console/billing/return",
    "/console/playground",
    "/console/evaluate",
    "/console/calibrations",
    "/console/questions",
    "/console/batches",
    "/console/settings",
  ]) {
    it(`GET ${path} is the page's HTML with a CSP that allows no inline script or style and no framing`, async () => {
      const res = await navigate(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = cspOf(res);
      expect(csp.get("default-src")).toBe("'none'");
      expect(csp.get("script-src")).toBe("'self'");
      expect(csp.get("style-src")).toBe("'self'");
      expect(csp.get("connect-src")).toBe("'self'");
      expect(csp.get("frame-ancestors")).toBe("'none'");
      expect(res.headers.get("content-security-policy")).not.toMatch(
        /unsafe-inline|unsafe-eval|nonce-|sha256-/,
      );
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const html = await res.text();
      // No inline script or style: every <script> has a src, no <style> element, no style attribute.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/<style[\s>]/);
      expect(html).not.toMatch(/\sstyle=/);
      expect(html).not.toMatch(/\son[a-z]+=/);
    });
  }

  it("the script and style sheet are served from the Worker with their type, hashed names and long caching", async () => {
    const html = await (await navigate("/console/keys")).text();
    const script = /<script type="module" src="(\/console\/assets\/app\.[0-9a-f]{12}\.js)">/.exec(html)?.[1];
    const style = /<link rel="stylesheet" href="(\/console\/assets\/app\.[0-9a-f]{12}\.css)">/.exec(
      html,
    )?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await SELF.fetch(`${BASE}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect((await js.text()).length).toBeGreaterThan(1000);
    const css = await SELF.fetch(`${BASE}${style}`);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(await css.text()).toContain(".uplot"); // the chart library's style sheet is bundled, no CDN
    expect((await SELF.fetch(`${BASE}/console/assets/app.000000000000.js`)).status).toBe(404);
  });

  it("/console goes to /console/; an unknown /console/ page is a 404 page", async () => {
    expect((await navigate("/console")).headers.get("location")).toBe("/console/");
    const missing = await navigate("/console/nope");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^text\/html/);
    expect(missing.headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  it("a browser navigation (Accept: text/html) to an unknown /v1 path still gets the API's JSON 404 `route_not_found`", async () => {
    // `/` itself sends a browser to the console (issue 31; test/worker/pages/root-redirect.test.ts).
    for (const path of ["/v1/nope", "/v1/console/nope", "/v1/console/", "/v1/"]) {
      const res = await navigate(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
      const body = (await res.json()) as { error: { type: string; code: string } };
      expect(body.error).toMatchObject({ type: "not_found", code: "route_not_found" });
    }
  });

  it("the pages answer only GET: POST /console/keys is the API's JSON 405 with `allow`", async () => {
    const res = await SELF.fetch(`${BASE}/console/keys`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("GET");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
  });
});
