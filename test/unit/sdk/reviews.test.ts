import { describe, expect, it } from "vitest";
import type { Review, ReviewRule } from "../../../sdk/src/index";
import { isSvcError } from "../../../sdk/src/index";
import { scriptedClient } from "../../support/sdk-fake-fetch";

const RULE = "rrule_01JD0000000000000000000000";
const REVIEW = "rev_01JD0000000000000000000000";
const question = { type: "check", instructions: "Does the customer ask for a refund?" } as const;
const rule: ReviewRule = {
  id: RULE,
  object: "review_rule",
  question,
  model: "svc-1.4.0",
  when: { abstained: false, below_confidence: 0.8, sample_rate: 0 },
  auto_apply: false,
  mode: "test",
  counts: { pending: 1, labelled: 0, skipped: 0, kept: 1 },
  full: false,
  loop: { status: "none", evaluation: null, calibration: null, error: null },
  created: 1,
};
const review: Review = {
  id: REVIEW,
  object: "review",
  rule: RULE,
  request_id: "req_01JD0000000000000000000000",
  model: "svc-1.4.0",
  question_id: "refund",
  state: "My parcel arrived broken.",
  question,
  answer: { type: "check", probability: 0.6, confidence: 0.2, abstained: false },
  status: "labelled",
  label: true,
  created: 1,
  reviewed: 2,
  expires_at: 3,
};

describe("SDK review methods (issue 51): client.reviews and activateCalibration", () => {
  it("each operation sends its method, path, query and body (ids encoded)", async () => {
    const { client, requests } = scriptedClient([{ json: rule, status: 201 }]);
    const body = { question, model: "svc-1.4.0", when: { below_confidence: 0.8 } };
    await client.reviews.createRule(body);
    await client.reviews.listRules({ limit: 5, starting_after: RULE });
    await client.reviews.retrieveRule(RULE);
    await client.reviews.deleteRule("rrule/x");
    await client.reviews.next(RULE);
    await client.reviews.evaluate(RULE);
    await client.reviews.list({ rule: RULE, status: "pending", limit: 10 });
    await client.reviews.label(REVIEW, true);
    await client.reviews.skip(REVIEW);
    await client.activateCalibration("calib_01JD0000000000000000000000");
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST http://api.test/v1/review-rules",
      `GET http://api.test/v1/review-rules?limit=5&starting_after=${RULE}`,
      `GET http://api.test/v1/review-rules/${RULE}`,
      "DELETE http://api.test/v1/review-rules/rrule%2Fx",
      `POST http://api.test/v1/review-rules/${RULE}/next`,
      `POST http://api.test/v1/review-rules/${RULE}/evaluations`,
      `GET http://api.test/v1/reviews?rule=${RULE}&status=pending&limit=10`,
      `POST http://api.test/v1/reviews/${REVIEW}/label`,
      `POST http://api.test/v1/reviews/${REVIEW}/skip`,
      "POST http://api.test/v1/calibrations/calib_01JD0000000000000000000000/activate",
    ]);
    expect(JSON.parse(requests[0]!.body!)).toEqual(body);
    expect(JSON.parse(requests[7]!.body!)).toEqual({ label: true });
  });

  it("answers pass through typed; a lost race is a SvcError 409 review_already_reviewed (conflict), not retried", async () => {
    const { client, requests } = scriptedClient([
      { json: review },
      { error: "review_already_reviewed", type: "conflict", status: 409 },
    ]);
    expect((await client.reviews.label(REVIEW, true)).label).toBe(true);
    const err = await client.reviews.label(REVIEW, false).catch((e: unknown) => e);
    expect(isSvcError(err) && err.code).toBe("review_already_reviewed");
    expect(isSvcError(err) && err.type).toBe("conflict");
    expect(requests).toHaveLength(2);
  });
});
