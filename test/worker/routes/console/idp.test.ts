import { generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { ACCOUNT_ID_PATTERN } from "../../../../schema/ids";
import { createApp } from "../../../../workers/app";
import { oidcProvider } from "../../../../workers/clients/idp";
import { buildServices } from "../../../../workers/services";
import {
  consoleCall,
  consoleEnv,
  IDP,
  idpControl,
  idpFetch,
  idToken,
  newEmail,
  randomIp,
  sessionCookie,
} from "../../../support/console";
import { expectError } from "../../../support/worker-http";

const exchange = (body: unknown, ip?: string) =>
  consoleCall("POST", "/v1/console/auth/idp/token", { body, ip });

describe("POST /v1/console/auth/idp/token (createIdpSession)", () => {
  it("a verified token → app_session; the same e-mail signs in to the same account; the bearer works without cookie or CSRF", async () => {
    const email = newEmail("idp");
    const res = await exchange({
      id_token: await idToken({ email: email.toUpperCase(), nonce: "n-1" }),
      nonce: "n-1",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      account_id: string;
      session_token: string;
      expires_at: string;
      object: string;
    };
    expect(body.object).toBe("app_session");
    expect(body.account_id).toMatch(ACCOUNT_ID_PATTERN);
    expect(body.session_token).toMatch(/^svc_ses_[A-Za-z0-9_-]{43}$/);
    expect((Date.parse(body.expires_at) - Date.now()) / 86_400_000).toBeCloseTo(30, 1);
    expect(res.headers.get("set-cookie")).toBeNull();

    const again = (await (await exchange({ id_token: await idToken({ email, aud: "svc-web" }) })).json()) as {
      account_id: string;
    };
    expect(again.account_id).toBe(body.account_id);
    const me = await consoleCall("GET", "/v1/console/session", { bearer: body.session_token });
    expect(await me.json()).toMatchObject({ account_id: body.account_id, email });
    const key = await consoleCall("POST", "/v1/console/keys", {
      bearer: body.session_token,
      body: { name: "app", mode: "test" },
    });
    expect(key.status).toBe(201);
    // An app session is not a cookie.
    await expectError(
      await consoleCall("GET", "/v1/console/session", { cookie: body.session_token }),
      401,
      "invalid_session",
    );
  });

  it('email_verified "true" (Apple) is accepted; false or no e-mail → 401 idp_email_unverified', async () => {
    expect(
      (await exchange({ id_token: await idToken({ email: newEmail(), email_verified: "true" }) })).status,
    ).toBe(200);
    await expectError(
      await exchange({ id_token: await idToken({ email: newEmail(), email_verified: false }) }),
      401,
      "idp_email_unverified",
    );
    await expectError(await exchange({ id_token: await idToken({}) }), 401, "idp_email_unverified");
  });

  it("wrong issuer, audience, signature or algorithm, expired, no exp, nonce mismatch → 401 invalid_idp_token", async () => {
    const email = newEmail();
    const other = await generateKeyPair("RS256");
    const hs = await new SignJWT({ email, email_verified: true })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(IDP.issuer)
      .setAudience(IDP.clientIds[0]!)
      .setSubject("s")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode("a-shared-secret-of-enough-length!!"));
    const cases: [string, string, string?][] = [
      ["issuer", await idToken({ email, iss: "https://evil.test" })],
      ["audience", await idToken({ email, aud: "someone-else" })],
      ["signature", await idToken({ email }, { key: other.privateKey })],
      ["unknown kid", await idToken({ email }, { key: other.privateKey, kid: "other" })],
      ["HS256", hs],
      ["expired", await idToken({ email }, { exp: Math.floor(Date.now() / 1000) - 60 })],
      ["no exp", await idToken({ email }, { exp: null })],
      ["nonce mismatch", await idToken({ email, nonce: "a" }), "b"],
      ["nonce missing in token", await idToken({ email }), "b"],
      ["not JSON inside", "eyJub3QiOiJqc29u.eyJ4Ijox.c2ln"],
    ];
    for (const [why, token, nonce] of cases) {
      const res = await exchange(nonce ? { id_token: token, nonce } : { id_token: token });
      expect(res.status, why).toBe(401);
      await expectError(res, 401, "invalid_idp_token");
    }
  });

  it("body rules: not a JWT or over 4,096 characters → 422 invalid_value; nonce 1–128; id_token required", async () => {
    await expectError(await exchange({ id_token: "abc" }), 422, "invalid_value", "id_token");
    await expectError(
      await exchange({ id_token: `a.b.${"c".repeat(4096)}` }),
      422,
      "invalid_value",
      "id_token",
    );
    await expectError(await exchange({ id_token: "a.b.c", nonce: "" }), 422, "invalid_value", "nonce");
    await expectError(
      await exchange({ id_token: "a.b.c", nonce: "n".repeat(129) }),
      422,
      "invalid_value",
      "nonce",
    );
    await expectError(await exchange({}), 422, "missing_field", "id_token");
  });

  it("no provider configured, or its keys cannot be fetched → 503 maintenance with retry-after", async () => {
    const bare = { ...consoleEnv, IDP_ISSUER: undefined, IDP_JWKS_URL: undefined };
    const unconfigured = await createApp().request(
      "https://svc.test/v1/console/auth/idp/token",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id_token: "a.b.c" }),
      },
      bare,
    );
    const e1 = await expectError(unconfigured, 503, "maintenance");
    expect(e1).toBeDefined();
    expect(Number(unconfigured.headers.get("retry-after"))).toBeGreaterThan(0);

    const down = { ...consoleEnv };
    const app = createApp((e) => ({
      ...buildServices(e),
      idp: oidcProvider(
        e,
        idpFetch(() => false),
      ),
    }));
    const res = await app.request(
      "https://svc.test/v1/console/auth/idp/token",
      {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": randomIp() },
        body: JSON.stringify({ id_token: await idToken({ email: newEmail() }) }),
      },
      down,
    );
    await expectError(res, 503, "maintenance");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("60 sign-ins an hour per client network, counted with startIdpSignIn → 429 sign_ins_per_hour (real wait ≤ 3,600 s)", async () => {
    const ip = randomIp();
    const v6 = "2001:db8:abcd:12::1";
    for (let i = 0; i < 30; i++) {
      const start = await consoleCall("GET", "/v1/console/auth/idp/start", { ip });
      expect(start.status).toBe(302);
    }
    const token = await idToken({ email: newEmail() });
    for (let i = 0; i < 30; i++)
      expect((await exchange({ id_token: token }, ip.replace(/\.7$/, ".99"))).status).toBe(200);
    const res = await exchange({ id_token: token }, ip);
    await expectError(res, 429, "sign_ins_per_hour");
    const wait = Number(res.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);
    await expectError(
      await consoleCall("GET", "/v1/console/auth/idp/start", { ip }),
      429,
      "sign_ins_per_hour",
    );
    // Another network is not affected; an IPv6 /64 counts as one network.
    expect((await exchange({ id_token: token }, v6)).status).toBe(200);
  });
});

describe("browser sign-in: startIdpSignIn → provider → callback (PKCE S256 + nonce)", () => {
  it("redirects with state, nonce and a S256 challenge, then the callback sets the session cookie", async () => {
    const email = newEmail("browser");
    const start = await consoleCall("GET", "/v1/console/auth/idp/start");
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get("location")!);
    expect(to.origin + to.pathname).toBe(consoleEnv.IDP_AUTHORIZE_URL);
    const q = to.searchParams;
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("redirect_uri")).toBe("https://svc.test/v1/console/auth/idp/callback");
    expect(q.get("client_id")).toBe(IDP.clientIds[0]);
    const stateCookie = /__Host-svc_idp_state=([^;]+)/.exec(start.headers.get("set-cookie") ?? "")![1]!;
    expect(stateCookie).toBe(q.get("state"));

    let verifier = "";
    idpControl.token = async (form) => {
      verifier = form.get("code_verifier") ?? "";
      return Response.json({ id_token: await idToken({ email, nonce: q.get("nonce")! }) });
    };
    const callback = (state: string, cookie: string) =>
      consoleCall("GET", `/v1/console/auth/idp/callback?code=c1&state=${state}`, {
        headers: { cookie: `__Host-svc_idp_state=${cookie}` },
      });
    await expectError(await callback(q.get("state")!, "forged"), 401, "invalid_idp_token");
    const done = await callback(q.get("state")!, stateCookie);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/console/");
    const challenge = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
    const b64 = btoa(String.fromCharCode(...new Uint8Array(challenge)))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    expect(b64).toBe(q.get("code_challenge"));
    const cookie = sessionCookie(done);
    expect(await (await consoleCall("GET", "/v1/console/session", { cookie })).json()).toMatchObject({
      email,
    });

    // The provider's token carrying another nonce is refused.
    idpControl.token = async () => Response.json({ id_token: await idToken({ email, nonce: "other" }) });
    await expectError(await callback(q.get("state")!, stateCookie), 401, "invalid_idp_token");
    await expectError(
      await consoleCall("GET", "/v1/console/auth/idp/callback?state=x"),
      422,
      "missing_field",
      "code",
    );
  });
});
