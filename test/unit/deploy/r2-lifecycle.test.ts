// Issue 50 item 7: the BATCHES bucket's lifecycle rule (deploy/r2/svc-batches-lifecycle.json, set with
// `npx wrangler r2 bucket lifecycle set svc-batches --file …`, docs/deploy.md) is the last net under the sweeps:
// it must never delete an object a batch still needs (its 24-hour window plus 30 days of results), and must
// cover every batch object.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RESULTS_RETENTION_DAYS } from "../../../workers/stores/batch-rows";

const DAY_S = 86_400;
const BATCH_WINDOW_DAYS = 1;

describe("the R2 lifecycle rule of the batches bucket", () => {
  it("'set an R2 lifecycle rule': objects under batches/ expire, but only after the batch window plus the results' retention", () => {
    const policy = JSON.parse(readFileSync("deploy/r2/svc-batches-lifecycle.json", "utf8")) as {
      rules: {
        enabled: boolean;
        conditions: { prefix: string };
        deleteObjectsTransition: { condition: { type: string; maxAge: number } };
      }[];
    };
    const [rule] = policy.rules;
    expect(rule).toMatchObject({ enabled: true, conditions: { prefix: "batches/" } });
    expect(rule!.deleteObjectsTransition.condition.type).toBe("Age");
    const maxAge = rule!.deleteObjectsTransition.condition.maxAge;
    expect(maxAge).toBeGreaterThan((BATCH_WINDOW_DAYS + RESULTS_RETENTION_DAYS) * DAY_S);
    expect(maxAge).toBeLessThanOrEqual((BATCH_WINDOW_DAYS + RESULTS_RETENTION_DAYS + 2) * DAY_S);
  });
});
