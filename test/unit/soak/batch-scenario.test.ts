// The soak's batch check (soak/batch-scenario.ts): what "every line answered exactly once" means on a results file.
import { describe, expect, it } from "vitest";
import { batchResultProblems, type SoakBatch, ticketLines } from "../../../soak/batch-scenario";

const batch = (over: Partial<SoakBatch> = {}): SoakBatch => ({
  account: "rich",
  accountId: "acc_1",
  id: "batch_1",
  customIds: ["a", "b", "c"],
  status: "completed",
  counts: { total: 3, done: 3, failed: 0 },
  charge: 30,
  wallMs: 1,
  results: [
    { customId: "a", status: 200, id: "req_a", charge: 10 },
    { customId: "b", status: 200, id: "req_b", charge: 10 },
    { customId: "c", status: 200, id: "req_c", charge: 10 },
  ],
  ...over,
});

describe("the soak batch's results check", () => {
  it("'every line answered exactly once': a completed batch with each custom id once, in order, and Σ charges = usage passes", () => {
    expect(batchResultProblems(batch())).toEqual([]);
  });

  it("'results in input order': a swapped, missing or repeated line is a problem", () => {
    const [a, b, c] = batch().results as [
      SoakBatch["results"][0],
      SoakBatch["results"][0],
      SoakBatch["results"][0],
    ];
    expect(batchResultProblems(batch({ results: [b, a, c] }))).toHaveLength(1);
    expect(batchResultProblems(batch({ results: [a, b], charge: 20 })).join()).toMatch(
      /not the 3 custom ids/,
    );
    expect(batchResultProblems(batch({ results: [a, b, { ...c, id: "req_a" }] })).join()).toMatch(/twice/);
  });

  it("'usage.charge_micro_cents: the sum of the answered lines' charges': a charge off by one is a problem", () => {
    expect(batchResultProblems(batch({ charge: 31 })).join()).toMatch(/Σ the results' charges 30/);
  });

  it("a line finished with an error is counted as failed and charges nothing; a batch not completed is a problem", () => {
    const results = batch().results.map((r, i) => (i === 2 ? { ...r, status: 500, charge: 0 } : r));
    expect(
      batchResultProblems(batch({ results, charge: 20, counts: { total: 3, done: 2, failed: 1 } })),
    ).toEqual([]);
    expect(batchResultProblems(batch({ status: "paused" })).join()).toMatch(/not completed/);
  });

  it("ticketLines: one JSONL line per custom id, each naming the model", () => {
    const { jsonl, customIds } = ticketLines(3, "svc-1.4.0", "t");
    expect(customIds).toEqual(["t-0", "t-1", "t-2"]);
    const lines = jsonl.split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(customIds);
    expect(lines.every((l) => l.body.model === "svc-1.4.0")).toBe(true);
  });
});
