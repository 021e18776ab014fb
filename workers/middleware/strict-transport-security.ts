import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** Two years, subdomains included (browsers ignore the header over plain HTTP, so it is always sent). */
export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

/**
 * `Strict-Transport-Security` on every response of the Worker (API, console pages and assets, errors, 404s),
 * set after everything else ran, by Hono's secure-headers middleware with only that header switched on.
 */
export function strictTransportSecurity(): MiddlewareHandler {
  return secureHeaders({
    strictTransportSecurity: STRICT_TRANSPORT_SECURITY,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    xContentTypeOptions: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    removePoweredBy: false,
  });
}
