import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getSql } from "../../../../workers/stores/db";
import { consoleCall, signIn } from "../../../support/console";
import { expectError } from "../../../support/worker-http";

const DAY = 86_400_000;
const age = (accountId: string, days: number) =>
  getSql(env).query(
    `UPDATE console_sessions SET created_at = now() - make_interval(secs => $2::double precision * 86400),
       expires_at = now() + interval '1 day' WHERE account_id = $1`,
    [accountId, days],
  );

describe("issue 45 item 8: a session has an absolute lifetime of 90 days besides the 30-day sliding one", () => {
  it("a session used every day still ends 90 days after sign-in: its expiry never slides past that", async () => {
    const s = await signIn();
    await age(s.accountId, 89);
    const res = await consoleCall("GET", "/v1/console/session", { cookie: s.cookie });
    expect(res.status).toBe(200);
    const { expires_at } = (await res.json()) as { expires_at: string };
    const left = (Date.parse(expires_at) - Date.now()) / DAY;
    expect(left).toBeGreaterThan(0.99);
    expect(left).toBeLessThanOrEqual(1.001);
  });

  it("90 days after sign-in the session answers 401 invalid_session, even with its sliding expiry ahead", async () => {
    const s = await signIn();
    await age(s.accountId, 90.001);
    await expectError(
      await consoleCall("GET", "/v1/console/session", { cookie: s.cookie }),
      401,
      "invalid_session",
    );
  });
});
