// Issue 45 item 2: a free account with a test key creating evaluations in a loop. Each creation counts against
// the key's requests per minute; at most 5 evaluations per account are queued, running or paused at once; the
// account's stored evaluations hold at most 64 MiB.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../workers/env";
import { consoleCall, signIn } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const item = {
  state: "Refund me, the cup is broken.",
  questions: { q: { type: "check", instructions: "Refund?" } },
  expected: { q: true },
};
const body = { name: "flood", items: [item] };

describe("issue 45 item 2: evaluation floods", () => {
  it("creating an evaluation counts against the key's requests per minute: past it → 429 requests_per_minute with retry-after", async () => {
    const a = await seed({ keys: [{ mode: "test", rpmLimit: 2 }] });
    const key = a.keys[0]!.secret;
    for (let i = 0; i < 2; i++)
      expect((await consoleCall("POST", "/v1/evaluations", { bearer: key, body })).status).toBe(201);
    const res = await consoleCall("POST", "/v1/evaluations", { bearer: key, body });
    await expectError(res, 429, "requests_per_minute");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const n = await sqlQuery(e)("SELECT count(*)::int AS n FROM evaluations WHERE account_id = $1", [
      a.accountId,
    ]);
    expect(n).toEqual([{ n: 2 }]);
  });

  it("at most 5 evaluations queued, running or paused per account: the 6th → 429 evaluations_in_progress with retry-after, the console's route too", async () => {
    const s = await signIn();
    const a = await seed({ keys: [{ mode: "test" }] });
    const q = sqlQuery(e);
    // The API key's account: five queued at once (parallel: the cap holds under a race too).
    const key = a.keys[0]!.secret;
    const seven = await Promise.all(
      Array.from({ length: 7 }, () => consoleCall("POST", "/v1/evaluations", { bearer: key, body })),
    );
    expect(seven.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = seven.filter((r) => r.status !== 201);
    for (const r of refused) {
      await expectError(r, 429, "evaluations_in_progress");
      expect(r.headers.get("retry-after")).toBe("60");
    }
    // A finished one frees its place.
    await q(
      "UPDATE evaluations SET status = 'done' WHERE id = (SELECT id FROM evaluations WHERE account_id = $1 LIMIT 1)",
      [a.accountId],
    );
    expect((await consoleCall("POST", "/v1/evaluations", { bearer: key, body })).status).toBe(201);
    // The console's twin, for a signed-in account.
    const consoleBody = { cookie: s.cookie, csrf: s.csrf, body };
    for (let i = 0; i < 5; i++)
      expect((await consoleCall("POST", "/v1/console/evaluations", consoleBody)).status).toBe(201);
    await expectError(
      await consoleCall("POST", "/v1/console/evaluations", consoleBody),
      429,
      "evaluations_in_progress",
    );
  });

  it("the account's stored evaluations hold at most 64 MiB: past it → 409 evaluation_storage_full, nothing stored", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const key = a.keys[0]!.secret;
    const res = await consoleCall("POST", "/v1/evaluations", { bearer: key, body });
    const { id } = (await res.json()) as { id: string };
    const q = sqlQuery(e);
    // As if the account had uploaded 64 MiB less a few bytes already (finished, so not counted as active).
    await q("UPDATE evaluations SET status = 'done', bytes = $2 WHERE id = $1", [id, 64 * 1024 * 1024 - 10]);
    await expectError(
      await consoleCall("POST", "/v1/evaluations", { bearer: key, body }),
      409,
      "evaluation_storage_full",
    );
    expect(
      await q("SELECT count(*)::int AS n FROM evaluations WHERE account_id = $1", [a.accountId]),
    ).toEqual([{ n: 1 }]);
    // Deleting frees the space.
    await consoleCall("DELETE", `/v1/evaluations/${id}`, { bearer: key });
    expect((await consoleCall("POST", "/v1/evaluations", { bearer: key, body })).status).toBe(201);
  });
});
