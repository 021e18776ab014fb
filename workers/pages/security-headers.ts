/**
 * The console pages' Content-Security-Policy: scripts and styles only from the Worker's own files (no inline
 * script, no inline style, no eval), fetches only to the same origin, never framed, forms post only here.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of every console page and asset. */
export function securityHeaders(): Record<string, string> {
  return {
    "content-security-policy": CONSOLE_CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
  };
}
