import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_ID_PATTERN } from "../../../../schema/ids";
import { createApp } from "../../../../workers/app";
import { httpEmailSender } from "../../../../workers/clients/email";
import type { Env } from "../../../../workers/env";
import { buildServices } from "../../../../workers/services";
import { getSql } from "../../../../workers/stores/db";
import {
  consoleCall,
  consoleEnv,
  lastCode,
  newEmail,
  randomIp,
  sentEmails,
  sessionCookie,
} from "../../../support/console";
import { expectError } from "../../../support/worker-http";

const sendCode = (email: string, ip?: string) =>
  consoleCall("POST", "/v1/console/auth/codes", { body: { email }, ip });
const createSession = (email: string, code: string, ip?: string) =>
  consoleCall("POST", "/v1/console/sessions", { body: { email, code }, ip });
const wrongCode = (code: string) => String((Number(code) + 1) % 100_000_000).padStart(8, "0");

describe("e-mail code sign-in (createSession)", () => {
  it("sends an 8-digit code, stores only its HMAC, and a new address gets an acc_ account, cookie and csrf_token", async () => {
    const email = newEmail("new");
    const sent = await sendCode(email.toUpperCase());
    expect(sent.status).toBe(202);
    expect(await sent.json()).toMatchObject({ object: "sign_in_code", email });
    const code = lastCode(email);
    expect(code).toMatch(/^\d{8}$/);
    const stored = (await getSql(env).query("SELECT code_hmac FROM sign_in_codes WHERE email = $1", [
      email,
    ])) as {
      code_hmac: string;
    }[];
    expect(stored[0]!.code_hmac).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]!.code_hmac).not.toContain(code);

    const res = await createSession(email, code);
    expect(res.status).toBe(201);
    const body = (await res.json()) as { account_id: string; email: string; csrf_token: string };
    expect(body.account_id).toMatch(ACCOUNT_ID_PATTERN);
    expect(body.email).toBe(email);
    expect(body.csrf_token.length).toBeGreaterThanOrEqual(32);
    expect(body.csrf_token.length).toBeLessThanOrEqual(64);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^__Host-svc_session=svc_ses_[A-Za-z0-9_-]{43};/);
    for (const attr of ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"]) expect(cookie).toContain(attr);
    expect(cookie).not.toMatch(/Domain=/i);
    const hash = (await getSql(env).query("SELECT token_sha256 FROM console_sessions WHERE account_id = $1", [
      body.account_id,
    ])) as { token_sha256: string }[];
    expect(hash[0]!.token_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(hash[0]!.token_sha256).not.toBe(sessionCookie(res));

    // Single use: the same code again is invalid.
    await expectError(await createSession(email, code), 401, "invalid_code");
    // The same address signs in to the same account.
    await sendCode(email);
    const again = (await (await createSession(email, lastCode(email))).json()) as { account_id: string };
    expect(again.account_id).toBe(body.account_id);
  });

  it("wrong code → 401 invalid_code, the 5th wrong try too; then code_attempts_exceeded even with the right code (tries from one client network)", async () => {
    const email = newEmail("wrong");
    const ip = randomIp();
    await sendCode(email, ip);
    const code = lastCode(email);
    for (let i = 1; i <= 5; i++)
      await expectError(await createSession(email, wrongCode(code), ip), 401, "invalid_code");
    await expectError(await createSession(email, code, ip), 401, "code_attempts_exceeded");
    await expectError(await createSession(email, wrongCode(code), ip), 401, "code_attempts_exceeded");
    // A new code starts over.
    await sendCode(email, ip);
    expect((await createSession(email, lastCode(email), ip)).status).toBe(201);
  });

  it("parallel wrong tries from one client network never get more than five checks", async () => {
    const email = newEmail("race");
    const ip = randomIp();
    await sendCode(email);
    const code = lastCode(email);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => createSession(email, wrongCode(code), ip).then((r) => r.json())),
    );
    const codes = answers.map((a) => (a as { error: { code: string } }).error.code);
    expect(codes.filter((c) => c === "invalid_code")).toHaveLength(5);
    expect(codes.filter((c) => c === "code_attempts_exceeded")).toHaveLength(7);
  });

  it("an expired code → 401 invalid_code; no code ever sent → invalid_code", async () => {
    const email = newEmail("expired");
    await sendCode(email);
    await getSql(env).query(
      "UPDATE sign_in_codes SET expires_at = now() - interval '1 second' WHERE email = $1",
      [email],
    );
    await expectError(await createSession(email, lastCode(email)), 401, "invalid_code");
    await expectError(await createSession(newEmail("never"), "12345678"), 401, "invalid_code");
  });

  it("5 codes an hour per address → 429 email_codes_per_hour with the real wait (≤ 3,600 s)", async () => {
    const email = newEmail("limit");
    for (let i = 0; i < 5; i++) expect((await sendCode(email)).status).toBe(202);
    const res = await sendCode(email);
    await expectError(res, 429, "email_codes_per_hour");
    const wait = Number(res.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(sentEmails.filter((m) => m.to === email)).toHaveLength(5);
  });

  it("30 codes an hour per client network (IPv4 /24): the 31st from the same /24 → 429, another /24 still works", async () => {
    const ip = randomIp();
    const sameNet = ip.replace(/\.7$/, ".200");
    for (let i = 0; i < 30; i++)
      expect((await sendCode(newEmail("net"), i % 2 ? ip : sameNet)).status).toBe(202);
    const res = await sendCode(newEmail("net"), ip);
    await expectError(res, 429, "email_codes_per_hour");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await sendCode(newEmail("net"))).status).toBe(202);
  });

  it("body rules: 422 missing_field / invalid_value / unknown_field / invalid_type; 400 invalid_json and unsupported_media_type", async () => {
    await expectError(
      await consoleCall("POST", "/v1/console/auth/codes", { body: {} }),
      422,
      "missing_field",
      "email",
    );
    await expectError(
      await consoleCall("POST", "/v1/console/auth/codes", { body: { email: "not-an-address" } }),
      422,
      "invalid_value",
      "email",
    );
    await expectError(
      await consoleCall("POST", "/v1/console/auth/codes", { body: { email: newEmail(), extra: 1 } }),
      422,
      "unknown_field",
      "extra",
    );
    await expectError(
      await consoleCall("POST", "/v1/console/auth/codes", { body: { email: 5 } }),
      422,
      "invalid_type",
      "email",
    );
    await expectError(
      await consoleCall("POST", "/v1/console/auth/codes", { body: "{" }),
      400,
      "invalid_json",
    );
    await expectError(
      await consoleCall("POST", "/v1/console/sessions", {
        body: '{"email":"a@b.co","email":"a@b.co","code":"1"}',
      }),
      400,
      "duplicate_key",
      "/email",
    );
    await expectError(
      await consoleCall("POST", "/v1/console/auth/codes", {
        body: JSON.stringify({ email: newEmail() }),
        headers: { "content-type": "text/plain" },
      }),
      400,
      "unsupported_media_type",
      "content-type",
    );
  });
});

describe("e-mail provider unavailable", () => {
  const post = (app: ReturnType<typeof createApp>, env: Env) =>
    app.request(
      "https://svc.test/v1/console/auth/codes",
      {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": randomIp() },
        body: JSON.stringify({ email: newEmail("down") }),
      },
      env,
    );

  it("not configured, or the API refuses → 503 maintenance with retry-after", async () => {
    const unconfigured = { ...consoleEnv, EMAIL_API_KEY: undefined };
    const res = await post(createApp(), unconfigured);
    await expectError(res, 503, "maintenance");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);

    const refusing = createApp((e) => ({
      ...buildServices(e),
      email: httpEmailSender(e, async () => new Response('{"message":"nope"}', { status: 500 })),
    }));
    await expectError(await post(refusing, { ...consoleEnv }), 503, "maintenance");
  });
});
