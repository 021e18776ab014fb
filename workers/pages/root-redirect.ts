import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context/app-env";

/** Whether an `accept` header asks for HTML (a `text/html` range with a quality above 0). */
export function acceptsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(",").some((range) => {
    const [type, ...params] = range.split(";").map((s) => s.trim().toLowerCase());
    if (type !== "text/html") return false;
    const q = params.find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A person opening the base address in a browser (`GET /` asking for HTML) goes to the console. `/` is outside
 * the API (every API path starts with `/v1`): any other request to it keeps the router's answer (404 JSON).
 */
export function rootRedirect(): MiddlewareHandler<AppEnv> {
  return async function rootRedirectMiddleware(c, next) {
    const method = c.req.method;
    if (c.req.path === "/" && (method === "GET" || method === "HEAD") && acceptsHtml(c.req.header("accept")))
      return c.redirect("/console/", 302);
    await next();
  };
}
