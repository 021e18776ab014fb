import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN } from "../../../../schema/api-key";
import { KEY_ID_PATTERN } from "../../../../schema/ids";
import { consoleCall, signIn } from "../../../support/console";
import { expectError } from "../../../support/worker-http";

const ADMIN = { authorization: "Bearer test-admin-token" };
type Session = Awaited<ReturnType<typeof signIn>>;
const create = (s: Session, body: unknown) =>
  consoleCall("POST", "/v1/console/keys", { cookie: s.cookie, csrf: s.csrf, body });

/** Polls GET /v1/key with `secret` until it answers `status`; the time it took. */
async function untilStatus(
  secret: string,
  status: number,
  limitMs = 3000,
): Promise<{ ms: number; res: Response }> {
  const t0 = Date.now();
  for (;;) {
    const res = await consoleCall("GET", "/v1/key", { bearer: secret });
    if (res.status === status || Date.now() - t0 > limitMs) return { ms: Date.now() - t0, res };
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("console keys: create, list, change, revoke", () => {
  it("creates a key (secret shown once, all scopes by default), lists it by display prefix only", async () => {
    const s = await signIn();
    const res = await create(s, { name: "backend", mode: "live" });
    expect(res.status).toBe(201);
    const key = (await res.json()) as Record<string, unknown>;
    expect(key.id).toMatch(KEY_ID_PATTERN);
    expect(key.secret).toMatch(API_KEY_PATTERN);
    expect(key).toMatchObject({
      object: "key",
      name: "backend",
      mode: "live",
      scopes: ["decide", "usage:read", "balance:read"],
    });
    expect(String(key.secret).startsWith(String(key.prefix))).toBe(true);
    // The key works on the public API.
    const me = await consoleCall("GET", "/v1/key", { bearer: String(key.secret) });
    expect(await me.json()).toMatchObject({ id: key.id, account_id: s.accountId, mode: "live" });

    const list = (await (await consoleCall("GET", "/v1/console/keys", { cookie: s.cookie })).json()) as {
      data: Record<string, unknown>[];
    };
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: key.id, prefix: key.prefix });
    expect(JSON.stringify(list)).not.toContain(String(key.secret));
  });

  it("narrowed scopes, own limits at the caps, an expiry; limits above the caps → 422 invalid_value (not clamped)", async () => {
    const s = await signIn();
    const ok = await create(s, {
      name: "narrow",
      mode: "test",
      scopes: ["usage:read"],
      rpm_limit: 30,
      tpm_limit: 40_000,
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(ok.status).toBe(201);
    const key = (await ok.json()) as {
      secret: string;
      scopes: string[];
      rpm_limit: number;
      expires_at: string;
    };
    expect(key).toMatchObject({ scopes: ["usage:read"], rpm_limit: 30, tpm_limit: 40_000 });
    await expectError(
      await consoleCall("GET", "/v1/balance", { bearer: key.secret }),
      403,
      "insufficient_scope",
    );

    const refused: [Record<string, unknown>, string, string][] = [
      [{ name: "x", mode: "test", rpm_limit: 31 }, "invalid_value", "rpm_limit"],
      [{ name: "x", mode: "live", tpm_limit: 300_001 }, "invalid_value", "tpm_limit"],
      [{ name: "x", mode: "live", rpm_limit: 0 }, "invalid_value", "rpm_limit"],
      [{ name: "", mode: "live" }, "invalid_value", "name"],
      [{ name: "n".repeat(65), mode: "live" }, "invalid_value", "name"],
      [{ name: "x", mode: "prod" }, "invalid_value", "mode"],
      [{ name: "x", mode: "live", scopes: [] }, "invalid_value", "scopes"],
      [{ name: "x", mode: "live", scopes: ["admin"] }, "invalid_value", "scopes"],
      [{ name: "x", mode: "live", scopes: "decide" }, "invalid_type", "scopes"],
      [{ name: "x", mode: "live", expires_at: "2001-01-01T00:00:00Z" }, "invalid_value", "expires_at"],
      [{ mode: "live" }, "missing_field", "name"],
      [{ name: "x", mode: "live", secret: "mine" }, "unknown_field", "secret"],
      // Several broken fields: the first code by the spec's precedence, whatever the fields' order.
      [{ name: 5, mode: "prod" }, "invalid_value", "mode"],
      [{ scopes: "decide", name: "x", mode: "live", rpm_limit: 0 }, "invalid_value", "rpm_limit"],
      [{ name: 5, expires_at: 7, secret: "mine" }, "unknown_field", "secret"],
      [{ name: 5, expires_at: 7 }, "missing_field", "mode"],
    ];
    for (const [body, code, param] of refused) await expectError(await create(s, body), 422, code, param);
    expect((await create(s, { name: "n".repeat(64), mode: "live" })).status).toBe(201);
  });

  it("changes name, scopes and limits; null limit = the account cap; above the cap → 422", async () => {
    const s = await signIn();
    const key = (await (await create(s, { name: "a", mode: "live", rpm_limit: 10 })).json()) as {
      id: string;
    };
    const patch = (body: unknown) =>
      consoleCall("PATCH", `/v1/console/keys/${key.id}`, { cookie: s.cookie, csrf: s.csrf, body });
    const res = await patch({ name: "b", scopes: ["decide"], rpm_limit: null, tpm_limit: 1000 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: "b",
      scopes: ["decide"],
      rpm_limit: null,
      tpm_limit: 1000,
    });
    await expectError(await patch({ rpm_limit: 301 }), 422, "invalid_value", "rpm_limit");
    await expectError(await patch({ mode: "test" }), 422, "unknown_field", "mode");
    await expectError(await patch({ name: 7, scopes: [] }), 422, "invalid_value", "scopes");
  });

  it("unknown, malformed or another account's key id → 404 key_not_found", async () => {
    const s = await signIn();
    const other = await signIn();
    const theirs = (await (await create(other, { name: "theirs", mode: "live" })).json()) as { id: string };
    for (const id of [theirs.id, "key_01JD0000000000000000000000", "nope"]) {
      await expectError(
        await consoleCall("DELETE", `/v1/console/keys/${id}`, { cookie: s.cookie, csrf: s.csrf }),
        404,
        "key_not_found",
      );
      await expectError(
        await consoleCall("PATCH", `/v1/console/keys/${id}`, {
          cookie: s.cookie,
          csrf: s.csrf,
          body: { name: "z" },
        }),
        404,
        "key_not_found",
      );
    }
  });

  it("revoke → the key answers 401 revoked_api_key within about a second (key cache ≤ 1 s)", async () => {
    const s = await signIn();
    const key = (await (await create(s, { name: "gone", mode: "live" })).json()) as {
      id: string;
      secret: string;
    };
    expect((await consoleCall("GET", "/v1/key", { bearer: key.secret })).status).toBe(200); // now cached
    const res = await consoleCall("DELETE", `/v1/console/keys/${key.id}`, { cookie: s.cookie, csrf: s.csrf });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { revoked_at: string | null }).revoked_at).not.toBeNull();
    const { ms, res: after } = await untilStatus(key.secret, 401);
    await expectError(after, 401, "revoked_api_key");
    expect(ms).toBeLessThanOrEqual(1200);
  });

  it("suspend → every key answers 403 account_suspended within about a second; unsuspend → 200 again", async () => {
    const s = await signIn();
    const key = (await (await create(s, { name: "k", mode: "test" })).json()) as { secret: string };
    expect((await consoleCall("GET", "/v1/key", { bearer: key.secret })).status).toBe(200);
    await consoleCall("POST", `/internal/accounts/${s.accountId}/suspend`, { headers: ADMIN });
    const { ms, res } = await untilStatus(key.secret, 403);
    await expectError(res, 403, "account_suspended");
    expect(ms).toBeLessThanOrEqual(1200);
    await consoleCall("POST", `/internal/accounts/${s.accountId}/unsuspend`, { headers: ADMIN });
    expect((await untilStatus(key.secret, 200)).ms).toBeLessThanOrEqual(1200);
  });
});
