import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from "jose";
import type { Env } from "../env";

/** What a verified ID token tells the service. */
export interface IdpIdentity {
  sub: string;
  /** Lower-cased, verified by the provider. */
  email: string;
}

/** The provider is not configured, or its keys / token endpoint cannot be reached. */
export class IdpUnavailableError extends Error {}

/** The token is not acceptable: `invalid_idp_token`, or no verified e-mail (`idp_email_unverified`). */
export class IdpRejectedError extends Error {
  constructor(readonly reason: "invalid_idp_token" | "idp_email_unverified") {
    super(reason);
  }
}

/** One OpenID Connect provider: token verification (native apps) and the browser code flow (PKCE + nonce). */
export interface IdentityProvider {
  /** Issuer, key set URL and at least one client id are set. */
  readonly configured: boolean;
  /** The authorize and token endpoints are set too. */
  readonly browserFlow: boolean;
  verifyIdToken(idToken: string, nonce?: string): Promise<IdpIdentity>;
  authorizeUrl(p: { state: string; nonce: string; codeChallenge: string; redirectUri: string }): string;
  /** Exchanges an authorization code for the provider's ID token. */
  exchangeCode(p: { code: string; codeVerifier: string; redirectUri: string }): Promise<string>;
}

export type IdpEnv = Pick<
  Env,
  | "IDP_ISSUER"
  | "IDP_JWKS_URL"
  | "IDP_CLIENT_IDS"
  | "IDP_AUTHORIZE_URL"
  | "IDP_TOKEN_URL"
  | "IDP_CLIENT_SECRET"
>;

const list = (v: string | undefined) =>
  (v ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** jose errors that mean "the keys could not be had", not "the token is bad". */
function keysUnreachable(err: unknown): boolean {
  if (!(err instanceof errors.JOSEError)) return true; // fetch failed (TypeError), abort, …
  return (
    err.code === "ERR_JWKS_TIMEOUT" || err.code === "ERR_JWKS_INVALID" || err.code === "ERR_JOSE_GENERIC"
  );
}

function verifiedEmail(payload: JWTPayload): string {
  const email = payload.email;
  const verified = payload.email_verified === true || payload.email_verified === "true";
  if (typeof email !== "string" || email === "" || !verified)
    throw new IdpRejectedError("idp_email_unverified");
  return email.trim().toLowerCase();
}

/**
 * The provider of an env, built once per isolate (services): its remote key set is cached by jose (10 min,
 * 30 s cooldown, 5 s timeout). Tokens must be RS256, from a configured issuer, for any configured client id,
 * carry `exp`, `iat` and `sub`, and match the nonce when one is given.
 */
export function oidcProvider(env: IdpEnv, fetcher?: typeof fetch): IdentityProvider {
  const issuers = list(env.IDP_ISSUER);
  const clientIds = list(env.IDP_CLIENT_IDS);
  const configured = issuers.length > 0 && clientIds.length > 0 && Boolean(env.IDP_JWKS_URL);
  const doFetch: typeof fetch = fetcher ?? ((input, init) => fetch(input, init));
  const jwks = configured
    ? createRemoteJWKSet(new URL(env.IDP_JWKS_URL!), fetcher ? { [customFetch]: fetcher } : {})
    : null;
  return {
    configured,
    browserFlow: configured && Boolean(env.IDP_AUTHORIZE_URL && env.IDP_TOKEN_URL),
    async verifyIdToken(idToken, nonce) {
      if (!jwks) throw new IdpUnavailableError("identity provider not configured");
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(idToken, jwks, {
          algorithms: ["RS256"],
          issuer: issuers,
          audience: clientIds,
          requiredClaims: ["exp", "iat", "sub"],
        }));
      } catch (err) {
        if (err instanceof errors.JOSEError && !keysUnreachable(err))
          throw new IdpRejectedError("invalid_idp_token");
        throw new IdpUnavailableError(
          `identity provider keys unavailable: ${err instanceof Error ? err.name : "error"}`,
        );
      }
      if (nonce !== undefined && payload.nonce !== nonce) throw new IdpRejectedError("invalid_idp_token");
      return { sub: String(payload.sub), email: verifiedEmail(payload) };
    },
    authorizeUrl({ state, nonce, codeChallenge, redirectUri }) {
      const url = new URL(env.IDP_AUTHORIZE_URL ?? "");
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: clientIds[0] ?? "",
        redirect_uri: redirectUri,
        scope: "openid email",
        state,
        nonce,
        code_challenge: codeChallenge,
        code_challenge_method: "S256",
      }).toString();
      return url.toString();
    },
    async exchangeCode({ code, codeVerifier, redirectUri }) {
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientIds[0] ?? "",
        code_verifier: codeVerifier,
      });
      if (env.IDP_CLIENT_SECRET) form.set("client_secret", env.IDP_CLIENT_SECRET);
      let res: Response;
      try {
        res = await doFetch(env.IDP_TOKEN_URL ?? "", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form.toString(),
          signal: AbortSignal.timeout(10_000),
        });
      } catch {
        throw new IdpUnavailableError("identity provider token endpoint unreachable");
      }
      if (res.status >= 500) throw new IdpUnavailableError(`token endpoint answered ${res.status}`);
      const body = (await res.json().catch(() => ({}))) as { id_token?: unknown };
      if (!res.ok || typeof body.id_token !== "string") throw new IdpRejectedError("invalid_idp_token");
      return body.id_token;
    },
  };
}
