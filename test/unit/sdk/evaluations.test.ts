import { describe, expect, it } from "vitest";
import { scriptedClient } from "../../support/sdk-fake-fetch";

const evaluation = (status: string, done = 0) => ({
  id: "eval_01JD0000000000000000000000",
  object: "evaluation",
  name: "triage",
  model: "svc-1.4.0",
  status,
  progress: { done, total: 2 },
  usage: { input_tokens: 0 },
  created: 1,
  started: null,
  finished: null,
  resumes_at: null,
  expires_at: 2,
  failure: null,
  metrics: null,
});

describe("SDK evaluation methods", () => {
  it("each operation sends its method and path (ids encoded, DELETE included)", async () => {
    const { client, requests } = scriptedClient([{ json: evaluation("queued") }]);
    const id = "eval_01JD0000000000000000000000";
    await client.createEvaluation({
      name: "triage",
      items: [
        { state: "s", questions: { q: { type: "check", instructions: "ok?" } }, expected: { q: true } },
      ],
    });
    await client.listEvaluations({ limit: 5, starting_after: id });
    await client.getEvaluation(id);
    await client.cancelEvaluation(id);
    await client.deleteEvaluation(id);
    await client.listEvaluationItems(id, { limit: 10, starting_after: 3 });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST http://api.test/v1/evaluations",
      `GET http://api.test/v1/evaluations?limit=5&starting_after=${id}`,
      `GET http://api.test/v1/evaluations/${id}`,
      `POST http://api.test/v1/evaluations/${id}/cancel`,
      `DELETE http://api.test/v1/evaluations/${id}`,
      `GET http://api.test/v1/evaluations/${id}/items?limit=10&starting_after=3`,
    ]);
    expect(JSON.parse(requests[0]!.body!)).toMatchObject({
      name: "triage",
      items: [{ expected: { q: true } }],
    });
    expect(requests[0]!.headers.authorization).toBe("Bearer svc_test_key");
  });

  it("waitForEvaluation polls until the run stops moving", async () => {
    const { client, requests } = scriptedClient([
      { json: evaluation("queued") },
      { json: evaluation("running", 1) },
      { json: evaluation("done", 2) },
    ]);
    const e = await client.waitForEvaluation("eval_01JD0000000000000000000000", { intervalMs: 1 });
    expect(e.status).toBe("done");
    expect(requests).toHaveLength(3);
  });

  it("waitForEvaluation returns a paused run (quota used up) and gives up after its timeout", async () => {
    const paused = scriptedClient([{ json: { ...evaluation("paused"), resumes_at: 99 } }]);
    expect((await paused.client.waitForEvaluation("eval_x", { intervalMs: 1 })).resumes_at).toBe(99);
    const stuck = scriptedClient([{ json: evaluation("running") }]);
    await expect(stuck.client.waitForEvaluation("eval_x", { intervalMs: 5, timeoutMs: 20 })).rejects.toThrow(
      /still running/,
    );
  });
});
