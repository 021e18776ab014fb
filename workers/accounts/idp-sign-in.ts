import { constantTimeEqual } from "../../schema/constant-time";
import { IdpRejectedError, IdpUnavailableError } from "../clients/idp";
import type { Services } from "../context/services";
import { ApiError } from "../errors";
import { type AccountRow, findOrCreateAccountByEmail } from "../stores/accounts";
import type { SessionKind } from "../stores/sessions";
import { base64Url, hmacBase64Url, randomBase64Url, sha256Hex } from "./secrets";
import { type NewSession, startSession } from "./sessions";
import { orMaintenance } from "./unavailable";

type Deps = Pick<Services, "db" | "idp" | "signInLimits">;

const unavailable = () =>
  new ApiError("maintenance", { message: "Sign-in with the identity provider is temporarily unavailable." });

/** Maps the provider client's errors to the spec's codes. */
async function idpCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof IdpRejectedError)
      throw new ApiError(err.reason, {
        message:
          err.reason === "idp_email_unverified"
            ? "The identity provider has not verified the e-mail address."
            : "The identity-provider token is not valid.",
      });
    if (err instanceof IdpUnavailableError) throw unavailable();
    throw err;
  }
}

/** The account of a verified identity (created when new) and a new session of `kind` for it. */
async function signInVerified(
  deps: Deps,
  email: string,
  kind: SessionKind,
): Promise<{ account: AccountRow; session: NewSession }> {
  const { account } = await orMaintenance("accounts", () => findOrCreateAccountByEmail(deps.db, email));
  if (account.status === "suspended")
    throw new ApiError("account_suspended", { message: "The account is suspended." });
  const session = await orMaintenance("sessions", () => startSession(deps.db, account.id, kind));
  return { account, session };
}

/**
 * `createIdpSession`: the network's hourly sign-ins (429), then the ID token (RS256, issuer, audience, exp,
 * nonce, verified e-mail), then the account and a bearer app session.
 */
export async function exchangeIdToken(
  deps: Deps,
  idToken: string,
  nonce: string | undefined,
  network: string,
) {
  if (!deps.idp.configured) throw unavailable();
  await orMaintenance("sign-in limits", () => deps.signInLimits.idpSignIn(network));
  const identity = await idpCall(() => deps.idp.verifyIdToken(idToken, nonce));
  return signInVerified(deps, identity.email, "app");
}

/** PKCE verifier and nonce of a browser sign-in, derived from its state: nothing secret is stored. */
async function flowSecrets(secret: string, state: string) {
  const codeVerifier = await hmacBase64Url(secret, `pkce\n${state}`);
  const nonce = await hmacBase64Url(secret, `nonce\n${state}`);
  return { codeVerifier, nonce };
}

/**
 * `startIdpSignIn`: counts toward the same hourly sign-ins as the token exchange, then answers where to send
 * the browser (authorize URL with PKCE S256 and a nonce) and the state the browser keeps in a cookie.
 */
export async function startBrowserSignIn(deps: Deps, secret: string, network: string, redirectUri: string) {
  if (!deps.idp.browserFlow) throw unavailable();
  await orMaintenance("sign-in limits", () => deps.signInLimits.idpSignIn(network));
  const state = randomBase64Url(32);
  const { codeVerifier, nonce } = await flowSecrets(secret, state);
  const digest = (await sha256Hex(codeVerifier)).match(/../g)!.map((h) => Number.parseInt(h, 16));
  const codeChallenge = base64Url(Uint8Array.from(digest));
  return { state, url: deps.idp.authorizeUrl({ state, nonce, codeChallenge, redirectUri }) };
}

/**
 * The browser flow's callback: the state must equal the browser's cookie (constant time), the code is
 * exchanged with the PKCE verifier, the ID token verified with the nonce; then a cookie session.
 */
export async function completeBrowserSignIn(
  deps: Deps,
  secret: string,
  p: { code: string; state: string; cookieState: string | undefined; redirectUri: string },
) {
  if (!deps.idp.browserFlow) throw unavailable();
  if (!p.cookieState || !constantTimeEqual(await sha256Hex(p.state), await sha256Hex(p.cookieState)))
    throw new ApiError("invalid_idp_token", { message: "The sign-in state does not match; start again." });
  const { codeVerifier, nonce } = await flowSecrets(secret, p.state);
  const identity = await idpCall(async () => {
    const idToken = await deps.idp.exchangeCode({ code: p.code, codeVerifier, redirectUri: p.redirectUri });
    return deps.idp.verifyIdToken(idToken, nonce);
  });
  return signInVerified(deps, identity.email, "cookie");
}
