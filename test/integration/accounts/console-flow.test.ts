// The console end to end over HTTP: the Worker in workerd against the test stack (Postgres, Redis), the
// local e-mail fake (codes read from its inbox), the local identity provider (real RS256 keys, JWKS,
// authorize and token endpoints) and a GPU stand-in — as `npm start` wires them.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { type FakeEmail, startFakeEmail } from "../../../scripts/stack/fake-email";
import { type FakeIdp, startFakeIdp } from "../../../scripts/stack/fake-idp";
import { fetchFrom, loopbackNetwork } from "../../support/loopback-source";
import { ADMIN_TOKEN, type StandInGpu, startEdge, startStandInGpu } from "../../support/money-harness";
import { withStackDb } from "../../support/stack-db";

let edge: EdgeWorker;
let gpu: StandInGpu;
let email: FakeEmail;
let idp: FakeIdp;

beforeAll(async () => {
  [gpu, email, idp] = await Promise.all([startStandInGpu("ok"), startFakeEmail(), startFakeIdp()]);
  edge = await startEdge({
    gpuUrls: [gpu.url],
    bindings: {
      CONSOLE_SECRET: "integration-console-secret-0123456789",
      EMAIL_API_URL: email.url,
      EMAIL_API_KEY: email.apiKey,
      EMAIL_FROM: "svc <console@svc.test>",
      IDP_ISSUER: idp.issuer,
      IDP_JWKS_URL: idp.jwksUrl,
      IDP_CLIENT_IDS: idp.clientId,
      IDP_AUTHORIZE_URL: idp.authorizeUrl,
      IDP_TOKEN_URL: idp.tokenUrl,
    },
  });
});

afterAll(async () => {
  await edge?.stop();
  await Promise.all([gpu?.close(), email?.close(), idp?.close()]);
});

// The file's own client network: a loopback source address of its own (the front reads the socket, not a header).
const fromNetwork = fetchFrom(loopbackNetwork());

async function call(
  method: string,
  path: string,
  o: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers["content-type"] = "application/json";
  return fromNetwork(`${edge.url}${path}`, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    redirect: "manual",
  });
}

const cookieOf = (res: Response, name: string) =>
  new RegExp(`${name}=([^;]+)`).exec(res.headers.get("set-cookie") ?? "")?.[1];

describe("console end to end", () => {
  it("e-mail code → cookie session → key → decide with it → playground on the test quota → content log", async () => {
    const address = `flow-${Date.now()}@example.com`;
    expect((await call("POST", "/v1/console/auth/codes", { body: { email: address } })).status).toBe(202);
    // The code arrives through the e-mail API (Resend's shape) in the fake's inbox; only its HMAC is stored.
    const inbox = (await (await fetch(`${email.url}/__inbox?to=${encodeURIComponent(address)}`)).json()) as {
      data: { from: string; subject: string; text: string }[];
    };
    expect(inbox.data).toHaveLength(1);
    const code = /\b(\d{8})\b/.exec(inbox.data[0]!.text)![1]!;
    const signIn = await call("POST", "/v1/console/sessions", { body: { email: address, code } });
    expect(signIn.status).toBe(201);
    const { csrf_token: csrf, account_id: accountId } = (await signIn.json()) as Record<string, string>;
    const session = {
      cookie: `__Host-svc_session=${cookieOf(signIn, "__Host-svc_session")}`,
      "x-svc-csrf": csrf!,
    };

    const created = await call("POST", "/v1/console/keys", {
      headers: session,
      body: { name: "e2e", mode: "test" },
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { secret: string; id: string };
    const body = {
      state: "my parcel arrived broken",
      questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
    };
    const viaKey = await call("POST", "/v1/decide", {
      headers: { authorization: `Bearer ${key.secret}` },
      body,
    });
    expect(viaKey.status).toBe(200);

    const settings = await call("PATCH", "/v1/console/settings", {
      headers: session,
      body: { content_logging: { enabled: true, retention_days: 2 } },
    });
    expect(settings.status).toBe(200);
    const played = await call("POST", "/v1/console/playground/decide", { headers: session, body });
    expect(played.status).toBe(200);
    const decision = (await played.json()) as { id: string; usage: Record<string, unknown> };
    expect(decision.usage).toMatchObject({ tier: "test", charge_micro_cents: 0, unit_price_micro_cents: 0 });

    // Usage events and the content log are written after the response, each in its own batch.
    await vi.waitFor(
      async () => {
        const rows = await withStackDb(async (q) => ({
          events: (
            await q(
              "SELECT key_id, mode, status FROM usage_events WHERE account_id = $1 ORDER BY created_at",
              [accountId],
            )
          ).rows,
          logs: (
            await q(
              "SELECT request_id, key_id, request->'state' AS state, delete_after - now() > interval '47 hours' AS two_days FROM content_logs WHERE account_id = $1",
              [accountId],
            )
          ).rows,
        }));
        expect(rows.events).toEqual([
          { key_id: key.id, mode: "test", status: 200 },
          { key_id: `playground_${accountId}`, mode: "test", status: 200 },
        ]);
        expect(rows.logs).toEqual([
          { request_id: decision.id, key_id: null, state: body.state, two_days: true },
        ]);
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it("browser sign-in with the identity provider: start → authorize → callback → cookie session", async () => {
    const address = `browser-${Date.now()}@example.com`;
    const start = await call("GET", "/v1/console/auth/idp/start");
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get("location")!);
    authorize.searchParams.set("login_hint", address);
    const back = await fetch(authorize, { redirect: "manual" });
    expect(back.status).toBe(302);
    const callback = new URL(back.headers.get("location")!);
    expect(callback.pathname).toBe("/v1/console/auth/idp/callback");
    const done = await call("GET", callback.pathname + callback.search, {
      headers: { cookie: `__Host-svc_idp_state=${cookieOf(start, "__Host-svc_idp_state")}` },
    });
    expect(done.status).toBe(303);
    const cookie = `__Host-svc_session=${cookieOf(done, "__Host-svc_session")}`;
    const me = await call("GET", "/v1/console/session", { headers: { cookie } });
    expect(await me.json()).toMatchObject({ object: "session", email: address });
  });

  it("native app: provider token → app session → bearer on console routes (no cookie, no CSRF); suspension reaches it", async () => {
    const address = `app-${Date.now()}@example.com`;
    const idToken = await idp.mint({ email: address, nonce: "n-42" });
    const res = await call("POST", "/v1/console/auth/idp/token", {
      body: { id_token: idToken, nonce: "n-42" },
    });
    expect(res.status).toBe(200);
    const app = (await res.json()) as { session_token: string; account_id: string };
    const overview = await call("GET", "/v1/console/overview", {
      headers: { authorization: `Bearer ${app.session_token}` },
    });
    expect(await overview.json()).toMatchObject({
      object: "overview",
      account_id: app.account_id,
      balance_micro_cents: 0,
    });
    const k = await call("POST", "/v1/console/keys", {
      headers: { authorization: `Bearer ${app.session_token}` },
      body: { name: "from the app", mode: "live" },
    });
    expect(k.status).toBe(201);
    // Suspension reaches app sessions at once.
    await call("POST", `/internal/accounts/${app.account_id}/suspend`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const suspended = await call("GET", "/v1/console/keys", {
      headers: { authorization: `Bearer ${app.session_token}` },
    });
    expect(suspended.status).toBe(403);
    expect(((await suspended.json()) as { error: { code: string } }).error.code).toBe("account_suspended");
  });
});
