import { describe, expect, expectTypeOf, it } from "vitest";
import type { QuestionDrift, QuestionSeries } from "../../../sdk/src/index";
import { scriptedClient } from "../../support/sdk-fake-fetch";

const ID = "qst_8KV0JNE3R90ZRX043H727AD6WS";
const drift = {
  object: "question_drift",
  question: ID,
  model: "svc-1.5.1",
  statistic: "jensen_shannon_distance",
  value: 0.27,
  threshold: 0.1,
  reference: { start: "a", end: "b", count: 28, source: "first_week", complete: true },
  current: { start: "c", end: "d", count: 28 },
  drifted: true,
};

describe("SDK question methods (issue 52: 'SDKs … cover the new routes')", () => {
  it("each operation sends its method, path, query and body (ids encoded)", async () => {
    const { client, requests } = scriptedClient([{ json: drift }]);
    await client.questions.list({ limit: 5, starting_after: ID });
    await client.questions.list();
    await client.questions.retrieve("qst/x");
    await client.questions.series(ID, { start: "2026-10-01", end: "2026-10-08", granularity: "hour" });
    await client.questions.drift(ID);
    await client.questions.updateDrift(ID, { threshold: 0.2 });
    await client.questions.updateDrift(ID, { reset_reference: true });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET http://api.test/v1/questions?limit=5&starting_after=${ID}`,
      "GET http://api.test/v1/questions",
      "GET http://api.test/v1/questions/qst%2Fx",
      `GET http://api.test/v1/questions/${ID}/series?start=2026-10-01&end=2026-10-08&granularity=hour`,
      `GET http://api.test/v1/questions/${ID}/drift`,
      `POST http://api.test/v1/questions/${ID}/drift`,
      `POST http://api.test/v1/questions/${ID}/drift`,
    ]);
    expect(requests.slice(5).map((r) => JSON.parse(r.body!))).toEqual([
      { threshold: 0.2 },
      { reset_reference: true },
    ]);
    expect(requests.every((r) => r.headers.authorization === "Bearer svc_test_key")).toBe(true);
  });

  it("answers are passed through typed", async () => {
    const series = {
      object: "question_series",
      question: ID,
      type: "check",
      start: "x",
      end: "y",
      granularity: "day",
      data: [],
    };
    const { client } = scriptedClient([{ json: drift }, { json: series }]);
    const d = await client.questions.drift(ID);
    expectTypeOf(d).toEqualTypeOf<QuestionDrift>();
    expect(d.value).toBe(0.27);
    const s = await client.questions.series(ID, { start: "2026-10-01", end: "2026-10-02" });
    expectTypeOf(s).toEqualTypeOf<QuestionSeries>();
    expect(s.object).toBe("question_series");
  });
});
