import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getSql } from "../../../../workers/stores/db";
import { consoleCall, lastCode, signIn } from "../../../support/console";
import { expectError } from "../../../support/worker-http";

const ADMIN = { authorization: "Bearer test-admin-token" };

describe("console sessions: cookie, CSRF, sign-out, suspension", () => {
  it("GET /v1/console/session returns the csrf_token again (a reloaded page) and slides the expiry", async () => {
    const s = await signIn();
    await getSql(env).query(
      "UPDATE console_sessions SET expires_at = now() + interval '1 day' WHERE account_id = $1",
      [s.accountId],
    );
    const res = await consoleCall("GET", "/v1/console/session", { cookie: s.cookie });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      csrf_token: string;
      account_id: string;
      email: string;
      expires_at: string;
    };
    expect(body).toMatchObject({
      object: "session",
      account_id: s.accountId,
      email: s.email,
      csrf_token: s.csrf,
    });
    const days = (Date.parse(body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });

  it("missing, malformed, unknown or expired session → 401 invalid_session", async () => {
    await expectError(await consoleCall("GET", "/v1/console/session"), 401, "invalid_session");
    await expectError(
      await consoleCall("GET", "/v1/console/session", { cookie: "nope" }),
      401,
      "invalid_session",
    );
    const unknown = `svc_ses_${"A".repeat(43)}`;
    await expectError(
      await consoleCall("GET", "/v1/console/session", { cookie: unknown }),
      401,
      "invalid_session",
    );
    // A cookie session is not a bearer app session.
    const s = await signIn();
    await expectError(
      await consoleCall("GET", "/v1/console/session", { bearer: s.cookie }),
      401,
      "invalid_session",
    );
    await getSql(env).query(
      "UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE account_id = $1",
      [s.accountId],
    );
    await expectError(
      await consoleCall("GET", "/v1/console/session", { cookie: s.cookie }),
      401,
      "invalid_session",
    );
  });

  it("state-changing routes need x-svc-csrf: missing, short, long or wrong → 403 csrf_failed", async () => {
    const s = await signIn();
    const other = await signIn();
    const create = (csrf?: string) =>
      consoleCall("POST", "/v1/console/keys", { cookie: s.cookie, csrf, body: { name: "k", mode: "test" } });
    await expectError(await create(), 403, "csrf_failed");
    await expectError(await create("x".repeat(31)), 403, "csrf_failed");
    await expectError(await create("x".repeat(65)), 403, "csrf_failed");
    await expectError(await create(`${s.csrf[0] === "A" ? "B" : "A"}${s.csrf.slice(1)}`), 403, "csrf_failed");
    await expectError(await create(other.csrf), 403, "csrf_failed");
    expect((await create(s.csrf)).status).toBe(201);
  });

  it("sign-out deletes the session and clears the cookie; the token no longer works", async () => {
    const s = await signIn();
    await expectError(
      await consoleCall("DELETE", "/v1/console/session", { cookie: s.cookie }),
      403,
      "csrf_failed",
    );
    const res = await consoleCall("DELETE", "/v1/console/session", { cookie: s.cookie, csrf: s.csrf });
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toMatch(/__Host-svc_session=;.*Max-Age=0/);
    await expectError(
      await consoleCall("GET", "/v1/console/session", { cookie: s.cookie }),
      401,
      "invalid_session",
    );
  });

  it("operator suspend → sessions and sign-in answer 403 account_suspended; unsuspend restores", async () => {
    const s = await signIn();
    const suspend = await consoleCall("POST", `/internal/accounts/${s.accountId}/suspend`, {
      headers: ADMIN,
    });
    expect(await suspend.json()).toMatchObject({ status: "suspended" });
    await expectError(
      await consoleCall("GET", "/v1/console/session", { cookie: s.cookie }),
      403,
      "account_suspended",
    );
    await expectError(
      await consoleCall("POST", "/v1/console/keys", {
        cookie: s.cookie,
        csrf: s.csrf,
        body: { name: "k", mode: "test" },
      }),
      403,
      "account_suspended",
    );
    // Signing in again is refused too.
    await consoleCall("POST", "/v1/console/auth/codes", { body: { email: s.email } });
    await expectError(
      await consoleCall("POST", "/v1/console/sessions", {
        body: { email: s.email, code: lastCode(s.email) },
      }),
      403,
      "account_suspended",
    );
    await consoleCall("POST", `/internal/accounts/${s.accountId}/unsuspend`, { headers: ADMIN });
    expect((await consoleCall("GET", "/v1/console/session", { cookie: s.cookie })).status).toBe(200);
  });

  it("operator routes: no admin token → 401; a malformed or unknown account → 422 invalid_value", async () => {
    await expectError(await consoleCall("POST", "/internal/accounts/acc_x/suspend"), 401, "invalid_api_key");
    await expectError(
      await consoleCall("POST", "/internal/accounts/acc_x/suspend", { headers: ADMIN }),
      422,
      "invalid_value",
      "id",
    );
    await expectError(
      await consoleCall("POST", "/internal/accounts/acc_01JD0000000000000000000000/suspend", {
        headers: ADMIN,
      }),
      422,
      "invalid_value",
      "id",
    );
  });
});
