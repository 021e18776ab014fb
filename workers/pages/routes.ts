import { Hono } from "hono";
import type { AppEnv } from "../context/app-env";
import { CONSOLE_ASSETS, CONSOLE_SCRIPT, CONSOLE_STYLE } from "./dist/assets";
import { CONSOLE_PAGES, NOT_FOUND_PAGE } from "./page-list";
import { securityHeaders } from "./security-headers";
import { pageShell } from "./shell";

/**
 * The browser console, served by the API's own Worker under `/console/` (docs/decisions.md, "Browser
 * console"). Only GET/HEAD on `/console` and `/console/*`: every other path (`/v1/*`, and `/` too) stays the API
 * router's, so an unknown `/v1` path is the JSON 404 even for a browser navigation.
 */
export const consolePages = new Hono<AppEnv>();

consolePages.get("/console", (c) => c.redirect("/console/", 301));

consolePages.get("/console/assets/:file", (c) => {
  const asset = CONSOLE_ASSETS[c.req.param("file")];
  const headers = securityHeaders();
  if (!asset) return c.text("Not found", 404, { ...headers, "cache-control": "no-store" });
  // File names carry the content's hash: cache for a year.
  return c.body(asset.body, 200, {
    ...headers,
    "content-type": asset.type,
    "cache-control": "public, max-age=31536000, immutable",
  });
});

consolePages.get("/console/*", (c) => {
  const known = CONSOLE_PAGES[c.req.path];
  const page = known ?? NOT_FOUND_PAGE;
  return c.html(pageShell({ ...page, script: CONSOLE_SCRIPT, style: CONSOLE_STYLE }), known ? 200 : 404, {
    ...securityHeaders(),
    "cache-control": "no-cache",
  });
});
