/**
 * A local OpenID Connect provider with real RS256 keys: discovery, `GET /jwks`, `GET /authorize` (auto-approves
 * as `login_hint`, default `demo@example.com`, and redirects back with a code), `POST /token` (checks the code,
 * redirect URI, client id and the PKCE S256 verifier; answers an ID token carrying the flow's nonce).
 * For native-app tests and the README's curl flow: `POST /__mint {email, nonce?, email_verified?, aud?, iss?,
 * exp?, alg?}` signs an ID token directly. `POST /__control {"jwks": "ok" | "down"}` makes the key set fail.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { guarded } from "./guarded";
import { readBody } from "./read-body";

export interface FakeIdp {
  url: string;
  issuer: string;
  clientId: string;
  jwksUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Signs an ID token (default: for `clientId`, verified e-mail, 10 minutes). */
  mint(claims: JWTPayload & { email?: string }, opts?: { expiresIn?: string | null }): Promise<string>;
  setJwks(mode: "ok" | "down"): void;
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString("base64url");

/** Starts the fake provider on a free loopback port (or `port`). */
export async function startFakeIdp(opts: { port?: number; clientId?: string } = {}): Promise<FakeIdp> {
  const clientId = opts.clientId ?? "svc-console-local";
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  let jwksMode: "ok" | "down" = "ok";
  const codes = new Map<
    string,
    { redirectUri: string; clientId: string; nonce?: string; challenge: string; email: string }
  >();
  let issuer = "";

  const mint: FakeIdp["mint"] = async (claims, o = {}) => {
    const jwt = new SignJWT({ email_verified: true, ...claims })
      .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
      .setIssuer(typeof claims.iss === "string" ? claims.iss : issuer)
      .setAudience(claims.aud ?? clientId)
      .setSubject(
        claims.sub ?? `sub_${createHash("sha256").update(String(claims.email)).digest("hex").slice(0, 16)}`,
      )
      .setIssuedAt();
    if (o.expiresIn !== null) jwt.setExpirationTime(o.expiresIn ?? "10m");
    return jwt.sign(privateKey);
  };

  const server: Server = createServer(
    guarded(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://fake");
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
        res.end(JSON.stringify(json));
      };
      if (url.pathname === "/.well-known/openid-configuration")
        return send(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          id_token_signing_alg_values_supported: ["RS256"],
          code_challenge_methods_supported: ["S256"],
        });
      if (url.pathname === "/jwks")
        return jwksMode === "ok" ? send(200, { keys: [jwk] }) : send(503, { error: "down" });
      if (url.pathname === "/authorize" && req.method === "GET") {
        const q = url.searchParams;
        const redirectUri = q.get("redirect_uri") ?? "";
        if (
          q.get("client_id") !== clientId ||
          q.get("response_type") !== "code" ||
          q.get("code_challenge_method") !== "S256" ||
          !redirectUri
        )
          return send(400, { error: "invalid_request" });
        const code = randomUUID();
        codes.set(code, {
          redirectUri,
          clientId,
          nonce: q.get("nonce") ?? undefined,
          challenge: q.get("code_challenge") ?? "",
          email: q.get("login_hint") ?? "demo@example.com",
        });
        const back = new URL(redirectUri);
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state") ?? "");
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (url.pathname === "/token" && req.method === "POST") {
        const form = new URLSearchParams(await readBody(req));
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        if (
          !grant ||
          form.get("grant_type") !== "authorization_code" ||
          form.get("redirect_uri") !== grant.redirectUri ||
          form.get("client_id") !== grant.clientId ||
          b64url(createHash("sha256").update(verifier).digest()) !== grant.challenge
        )
          return send(400, { error: "invalid_grant" });
        const idToken = await mint({ email: grant.email, ...(grant.nonce ? { nonce: grant.nonce } : {}) });
        return send(200, {
          access_token: randomUUID(),
          token_type: "Bearer",
          expires_in: 600,
          id_token: idToken,
        });
      }
      if (url.pathname === "/__mint" && req.method === "POST") {
        const { exp, ...claims } = JSON.parse((await readBody(req)) || "{}") as JWTPayload & {
          email?: string;
        };
        return send(200, { id_token: await mint(claims, { expiresIn: exp === null ? null : undefined }) });
      }
      if (url.pathname === "/__control" && req.method === "POST") {
        jwksMode = (JSON.parse(await readBody(req)) as { jwks: "ok" | "down" }).jwks;
        return send(200, { jwks: jwksMode });
      }
      send(404, { error: "not_found" });
    }),
  );
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  issuer = `http://127.0.0.1:${port}`;
  return {
    url: issuer,
    issuer,
    clientId,
    jwksUrl: `${issuer}/jwks`,
    authorizeUrl: `${issuer}/authorize`,
    tokenUrl: `${issuer}/token`,
    mint,
    setJwks: (m) => {
      jwksMode = m;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
