/** What an API key may be allowed (spec: Authentication → Scopes); a new key gets all three. */
export const SCOPES = ["decide", "usage:read", "balance:read"] as const;

/** One scope of an API key. */
export type Scope = (typeof SCOPES)[number];

/** True when `s` names a scope. */
export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
