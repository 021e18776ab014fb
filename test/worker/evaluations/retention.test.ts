import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../workers/env";
import { sweepEvaluations } from "../../../workers/evaluations/sweep";
import { consoleCall } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const item = {
  state: "Refund me, the cup is broken.",
  questions: { q: { type: "check", instructions: "Refund?" } },
  expected: { q: true },
};

describe("content kept 30 days only", () => {
  it("an evaluation past its 30 days is gone from every read at once, and the sweep deletes it with its items", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const key = a.keys[0]!.secret;
    const res = await consoleCall("POST", "/v1/evaluations", {
      bearer: key,
      body: { name: "old", items: [item] },
    });
    const { id } = (await res.json()) as { id: string };
    const q = sqlQuery(e);
    await q("UPDATE evaluations SET expires_at = now() - interval '1 second' WHERE id = $1", [id]);
    await expectError(
      await consoleCall("GET", `/v1/evaluations/${id}`, { bearer: key }),
      404,
      "evaluation_not_found",
      "id",
    );
    const list = (await (await consoleCall("GET", "/v1/evaluations", { bearer: key })).json()) as {
      data: unknown[];
    };
    expect(list.data).toEqual([]);
    await sweepEvaluations(e);
    expect(await q("SELECT count(*)::int AS n FROM evaluations WHERE id = $1", [id])).toEqual([{ n: 0 }]);
    expect(await q("SELECT count(*)::int AS n FROM evaluation_items WHERE evaluation_id = $1", [id])).toEqual(
      [{ n: 0 }],
    );
  });
});
