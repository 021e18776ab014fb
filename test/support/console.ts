// Worker-tier helpers for the console routes: the real app and stores (Postgres, Redis of the test stack) with
// a capturing e-mail client and an in-process identity provider (real RS256 keys; its key set served through
// jose's customFetch), injected through the services seam.
import { env as cfEnv } from "cloudflare:test";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { createApp } from "../../workers/app";
import type { EmailMessage, EmailSender } from "../../workers/clients/email";
import { oidcProvider } from "../../workers/clients/idp";
import type { Env } from "../../workers/env";
import { buildServices } from "../../workers/services";

export const CONSOLE_SECRET = "test-console-secret-0123456789abcdefghij";
export const IDP = {
  issuer: "https://idp.test",
  jwksUrl: "https://idp.test/jwks",
  clientIds: ["svc-ios", "svc-web"],
};

/** The worker tier's env plus the console's variables (one object: services are built once for it). */
export const consoleEnv: Env = {
  ...(cfEnv as unknown as Env),
  CONSOLE_SECRET,
  EMAIL_API_KEY: "re_test",
  EMAIL_FROM: "svc <console@svc.test>",
  IDP_ISSUER: IDP.issuer,
  IDP_JWKS_URL: IDP.jwksUrl,
  IDP_CLIENT_IDS: IDP.clientIds.join(","),
  IDP_AUTHORIZE_URL: "https://idp.test/authorize",
  IDP_TOKEN_URL: "https://idp.test/token",
};

/** Messages the app "sent". */
export const sentEmails: EmailMessage[] = [];
/** An e-mail client that keeps what it "sends" in `sentEmails`. */
export const capture: EmailSender = {
  configured: true,
  async send(m) {
    sentEmails.push(m);
  },
};

const keys = await generateKeyPair("RS256", { extractable: true });
const kid = "test-key-1";
const publicJwk = { ...(await exportJWK(keys.publicKey)), kid, alg: "RS256", use: "sig" };
/** The provider's HTTP side: its key set, and what its token endpoint answers (set by a test). */
export const idpControl: { token: (form: URLSearchParams) => Promise<Response> } = {
  token: async () => Response.json({ error: "invalid_grant" }, { status: 400 }),
};
/** The provider's endpoints as the Worker's fetch sees them; `up: false` = nothing answers. */
export function idpFetch(up: () => boolean = () => true): typeof fetch {
  return async (input, init) => {
    if (!up()) throw new TypeError("fetch failed");
    const url = String(input instanceof Request ? input.url : input);
    if (url === IDP.jwksUrl) return Response.json({ keys: [publicJwk] });
    if (url === consoleEnv.IDP_TOKEN_URL)
      return idpControl.token(new URLSearchParams(String(init?.body ?? "")));
    return new Response("not found", { status: 404 });
  };
}

/** Signs an ID token with the provider's key (defaults: for `svc-ios`, verified e-mail, 10 minutes). */
export async function idToken(
  claims: JWTPayload & { email?: string },
  opts: { exp?: number | null; alg?: "RS256"; key?: CryptoKey; kid?: string } = {},
): Promise<string> {
  const jwt = new SignJWT({ email_verified: true, ...claims })
    .setProtectedHeader({ alg: "RS256", kid: opts.kid ?? kid })
    .setIssuer(typeof claims.iss === "string" ? claims.iss : IDP.issuer)
    .setAudience(claims.aud ?? IDP.clientIds[0]!)
    .setSubject(claims.sub ?? "sub-1")
    .setIssuedAt();
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? "10m");
  return jwt.sign(opts.key ?? keys.privateKey);
}

/** The app under test (real services except e-mail and the provider's key fetch). */
export const consoleApp = createApp((e) => ({
  ...buildServices(e),
  email: capture,
  idp: oidcProvider(e, idpFetch()),
}));

export interface CallOptions {
  body?: unknown;
  cookie?: string;
  csrf?: string;
  bearer?: string;
  ip?: string;
  headers?: Record<string, string>;
}

/** Calls the console app like a browser or app would. */
export async function consoleCall(method: string, path: string, o: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers["content-type"] ??= "application/json";
  if (o.cookie) headers.cookie = `__Host-svc_session=${o.cookie}`;
  if (o.csrf) headers["x-svc-csrf"] = o.csrf;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  headers["cf-connecting-ip"] = o.ip ?? randomIp();
  const body =
    o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
  return await consoleApp.request(`https://svc.test${path}`, { method, headers, body }, consoleEnv);
}

/** A fresh IPv4 address in its own /24 (rate-limit windows stay apart between tests). */
export function randomIp(): string {
  const r = () => Math.floor(Math.random() * 254) + 1;
  return `${r()}.${r()}.${r()}.7`;
}

/** A fresh address. */
export const newEmail = (tag = "user") => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** The last code e-mailed to `email`. */
export function lastCode(email: string): string {
  const m = sentEmails.filter((e) => e.to === email).at(-1);
  const code = m && /\b(\d{8})\b/.exec(m.text)?.[1];
  if (!code) throw new Error(`no code sent to ${email}`);
  return code;
}

/** The session token from a response's `set-cookie`. */
export function sessionCookie(res: Response): string {
  const m = /__Host-svc_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "");
  if (!m) throw new Error("no session cookie");
  return m[1]!;
}

/** Signs `email` in with a code; the cookie token, CSRF token and account id. */
export async function signIn(
  email = newEmail(),
): Promise<{ cookie: string; csrf: string; accountId: string; email: string }> {
  const sent = await consoleCall("POST", "/v1/console/auth/codes", { body: { email } });
  if (sent.status !== 202) throw new Error(`code: ${sent.status} ${await sent.text()}`);
  const res = await consoleCall("POST", "/v1/console/sessions", { body: { email, code: lastCode(email) } });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { csrf_token: string; account_id: string };
  return { cookie: sessionCookie(res), csrf: body.csrf_token, accountId: body.account_id, email };
}
