import { describe, expect, it } from "vitest";
import { MAX_REVIEW_RULES } from "../../../schema/reviews";
import { REFUND_CHECK } from "../../support/calibrations";
import { expectError } from "../../support/worker-http";
import { account, api, createRule, decide, q, waitForReviews } from "./support";

const settle = () => new Promise((r) => setTimeout(r, 300));

describe("issue 51: review rules (POST/GET/DELETE /v1/review-rules)", () => {
  it("POST /v1/review-rules → 201 {id: rrule_…, object: review_rule}, in the key's mode, listed and read back", async () => {
    const a = await account();
    const rule = await createRule(a.test);
    expect(rule.id).toMatch(/^rrule_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(rule).toMatchObject({
      object: "review_rule",
      mode: "test",
      model: "svc-1.5.1",
      question: { type: "check", instructions: REFUND_CHECK.instructions },
      when: { abstained: false, below_confidence: 0.8, sample_rate: 0 },
      auto_apply: false,
      counts: { pending: 0, labelled: 0, skipped: 0, kept: 0 },
      loop: { status: "none", evaluation: null, calibration: null, error: null },
    });
    expect((await (await api("GET", `/v1/review-rules/${rule.id}`, a.test)).json()).id).toBe(rule.id);
    expect((await (await api("GET", "/v1/review-rules", a.test)).json()).data.map((r: any) => r.id)).toEqual([
      rule.id,
    ]);
    // The other mode sees it as an unknown id.
    await expectError(
      (await api("GET", `/v1/review-rules/${rule.id}`, a.live)).res,
      404,
      "review_rule_not_found",
      "id",
    );
  });

  it("the sample rate's default is 0.01; a `when` that keeps nothing is 422 `param: when`", async () => {
    const a = await account();
    const rule = await createRule(a.live, { when: { abstained: true } });
    expect(rule.when).toEqual({ abstained: true, below_confidence: null, sample_rate: 0.01 });
    const bad = await api("POST", "/v1/review-rules", a.live, {
      question: REFUND_CHECK,
      when: { sample_rate: 0 },
    });
    await expectError(bad.res, 422, "invalid_value", "when");
  });

  it("every bad field is a 422 with its param", async () => {
    const a = await account();
    const cases: [unknown, string, string][] = [
      [{ when: { abstained: true } }, "missing_field", "question"],
      [{ question: REFUND_CHECK }, "missing_field", "when"],
      [
        { question: { type: "guess", instructions: "x" }, when: { abstained: true } },
        "invalid_value",
        "question.type",
      ],
      [{ question: { type: "check" }, when: { abstained: true } }, "missing_field", "question.instructions"],
      [{ question: REFUND_CHECK, when: { below_confidence: 2 } }, "invalid_value", "when.below_confidence"],
      [{ question: REFUND_CHECK, when: { sample_rate: "x" } }, "invalid_type", "when.sample_rate"],
      [{ question: REFUND_CHECK, when: { abstained: 1 } }, "invalid_type", "when.abstained"],
      [{ question: REFUND_CHECK, when: { abstained: true, extra: 1 } }, "unknown_field", "when.extra"],
      [
        { question: REFUND_CHECK, when: { abstained: true }, auto_apply: "yes" },
        "invalid_type",
        "auto_apply",
      ],
      [{ question: REFUND_CHECK, when: { abstained: true }, model: "gpt" }, "invalid_value", "model"],
      [{ question: REFUND_CHECK, when: { abstained: true }, colour: 1 }, "unknown_field", "colour"],
    ];
    for (const [body, code, param] of cases)
      await expectError((await api("POST", "/v1/review-rules", a.live, body)).res, 422, code, param);
    await expectError(
      (
        await api("POST", "/v1/review-rules", a.live, {
          question: REFUND_CHECK,
          when: { abstained: true },
          model: "svc-9",
        })
      ).res,
      404,
      "model_not_found",
      "model",
    );
  });

  it("caps: rules per account → 409 review_rule_limit_reached", async () => {
    const a = await account();
    await q(
      `INSERT INTO review_rules (id, account_id, mode, question, fingerprint, abstained, sample_rate)
       SELECT 'rrule_01JD' || lpad(g::text, 22, '0'), $1, 'live', '{}', 'f', true, 0 FROM generate_series(1, $2) g`,
      [a.accountId, MAX_REVIEW_RULES],
    );
    await expectError(
      (await api("POST", "/v1/review-rules", a.live, { question: REFUND_CHECK, when: { abstained: true } }))
        .res,
      409,
      "review_rule_limit_reached",
    );
  });
});

describe("issue 51: which decides are kept", () => {
  it("a decide below the rule's confidence is kept with its state, question and answer as given; one above is not", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    const kept = await decide(a.live, 0.7, "Parcel 1 is broken.");
    await decide(a.live, 0.97, "Parcel 2 is fine.");
    const [item, ...rest] = await waitForReviews(a.live, rule.id, 1);
    await settle();
    expect(rest).toEqual([]);
    expect(item).toMatchObject({
      object: "review",
      rule: rule.id,
      request_id: kept,
      model: "svc-1.5.1",
      question_id: "refund",
      state: "Parcel 1 is broken.",
      question: REFUND_CHECK,
      answer: { type: "check", probability: 0.7, abstained: false },
      status: "pending",
      label: null,
    });
    expect(item!.id).toMatch(/^rev_/);
    expect((await waitForReviews(a.live, rule.id, 1)).length).toBe(1);
  });

  it("live and test kept apart: a rule made with a test key sees only test decides, and a live key never lists it", async () => {
    const a = await account();
    const rule = await createRule(a.test);
    await decide(a.live, 0.6);
    await decide(a.test, 0.6, "test one");
    const items = await waitForReviews(a.test, rule.id, 1);
    await settle();
    expect((await waitForReviews(a.test, rule.id, 1)).map((r) => r.state)).toEqual(["test one"]);
    expect(items.length).toBe(1);
    await expectError(
      (await api("GET", `/v1/reviews?rule=${rule.id}`, a.live)).res,
      404,
      "review_rule_not_found",
      "id",
    );
    expect((await (await api("GET", "/v1/reviews", a.live)).json()).data).toEqual([]);
  });

  it("an account that never had a rule keeps nothing (its generation is 0)", async () => {
    const a = await account();
    await decide(a.live, 0.6);
    const rows = await q("SELECT review_rules_generation AS g FROM accounts WHERE id = $1", [a.accountId]);
    expect(Number((rows as any)[0]?.g ?? (rows as any).rows?.[0]?.g)).toBe(0);
  });
});

describe("issue 51: the queue (GET /v1/reviews, label, skip, next)", () => {
  it("lists newest first with filters rule, status and question (fingerprint or rule id); bad filters 422 with their param", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    for (const s of ["one", "two", "three"]) await decide(a.live, 0.6, s);
    const items = await waitForReviews(a.live, rule.id, 3);
    expect(items.map((r) => r.state)).toEqual(["three", "two", "one"]);
    await api("POST", `/v1/reviews/${items[0]!.id}/label`, a.live, { label: true });
    const by = async (query: string) =>
      ((await (await api("GET", `/v1/reviews?${query}`, a.live)).json()).data as any[]).map((r) => r.state);
    expect(await by(`rule=${rule.id}&status=labelled`)).toEqual(["three"]);
    expect(await by(`question=${rule.id}&status=pending`)).toEqual(["two", "one"]);
    expect(await by(`question=${"0".repeat(64)}`)).toEqual([]);
    expect(await by(`rule=${rule.id}&limit=1&starting_after=${items[0]!.id}`)).toEqual(["two"]);
    for (const [query, code, param] of [
      ["status=done", "invalid_value", "status"],
      ["question=abc", "invalid_value", "question"],
      ["rule=x", "invalid_value", "rule"],
      ["limit=0", "invalid_value", "limit"],
      ["starting_after=x", "invalid_value", "starting_after"],
      ["colour=red", "unknown_field", "colour"],
    ] as const)
      await expectError((await api("GET", `/v1/reviews?${query}`, a.live)).res, 422, code, param);
  });

  it("label → 200 labelled; a second label or a label after skip → 409 review_already_reviewed; outside the question → 422 param label", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    await decide(a.live, 0.6, "a");
    await decide(a.live, 0.6, "b");
    const [b, x] = await waitForReviews(a.live, rule.id, 2);
    await expectError(
      (await api("POST", `/v1/reviews/${b!.id}/label`, a.live, { label: "yes" })).res,
      422,
      "invalid_type",
      "label",
    );
    await expectError(
      (await api("POST", `/v1/reviews/${b!.id}/label`, a.live, {})).res,
      422,
      "missing_field",
      "label",
    );
    const labelled = await api("POST", `/v1/reviews/${b!.id}/label`, a.live, { label: false });
    expect(labelled.res.status).toBe(200);
    expect(await labelled.json()).toMatchObject({ id: b!.id, status: "labelled", label: false });
    await expectError(
      (await api("POST", `/v1/reviews/${b!.id}/label`, a.live, { label: true })).res,
      409,
      "review_already_reviewed",
      "id",
    );
    const skipped = await api("POST", `/v1/reviews/${x!.id}/skip`, a.live);
    expect((await skipped.json()).status).toBe("skipped");
    await expectError(
      (await api("POST", `/v1/reviews/${x!.id}/label`, a.live, { label: true })).res,
      409,
      "review_already_reviewed",
      "id",
    );
    await expectError(
      (await api("POST", `/v1/reviews/${x!.id}/skip`, a.live)).res,
      409,
      "review_already_reviewed",
      "id",
    );
    await expectError(
      (await api("POST", "/v1/reviews/rev_01JD0000000000000000000000/skip", a.live)).res,
      404,
      "review_not_found",
      "id",
    );
    await expectError(
      (await api("POST", `/v1/reviews/${x!.id}/skip`, a.test)).res,
      404,
      "review_not_found",
      "id",
    );
  });

  it("a pick's label is one of its option labels (422 param label otherwise)", async () => {
    const a = await account();
    const topic = { type: "pick", instructions: "Topic?", options: { refund: null, delivery: null } };
    const rule = await createRule(a.live, { question: topic, when: { sample_rate: 1 } });
    await decide(a.live, 0.5, "x", { t: topic });
    const [item] = await waitForReviews(a.live, rule.id, 1);
    await expectError(
      (await api("POST", `/v1/reviews/${item!.id}/label`, a.live, { label: "billing" })).res,
      422,
      "invalid_value",
      "label",
    );
    expect(
      (await api("POST", `/v1/reviews/${item!.id}/label`, a.live, { label: "delivery" })).res.status,
    ).toBe(200);
  });

  it("two reviewers at once never label one item twice: of parallel label calls exactly one wins, the rest 409", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    await decide(a.live, 0.6);
    const [item] = await waitForReviews(a.live, rule.id, 1);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api("POST", `/v1/reviews/${item!.id}/label`, i % 2 ? a.live : a.live2, { label: i % 2 === 0 }),
      ),
    );
    const statuses = results.map((r) => r.res.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it("next: each reviewer gets a different unclaimed item, the same one again until it is labelled; null when none is left", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    await decide(a.live, 0.6, "first");
    await decide(a.live, 0.6, "second");
    await waitForReviews(a.live, rule.id, 2);
    const next = async (secret: string) =>
      (await (await api("POST", `/v1/review-rules/${rule.id}/next`, secret)).json()) as any;
    const second = a.live2;
    const one = await next(a.live);
    expect(one.object).toBe("review_claim");
    expect(one.review.state).toBe("first");
    expect((await next(a.live)).review.id).toBe(one.review.id);
    const two = await next(second);
    expect(two.review.state).toBe("second");
    expect((await next(second)).review.id).toBe(two.review.id);
    await api("POST", `/v1/reviews/${one.review.id}/label`, a.live, { label: true });
    await api("POST", `/v1/reviews/${two.review.id}/skip`, second);
    expect((await next(a.live)).review).toBeNull();
    await expectError(
      (await api("POST", `/v1/review-rules/${rule.id}/next`, a.test)).res,
      404,
      "review_rule_not_found",
      "id",
    );
  });
});

describe("issue 51: the loop and deletes", () => {
  it("POST /v1/review-rules/{id}/evaluations with too few labels → 422 too_few_labels (calibrations' minimum: 30 of each answer for a check)", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    await decide(a.live, 0.6);
    const [item] = await waitForReviews(a.live, rule.id, 1);
    await api("POST", `/v1/reviews/${item!.id}/label`, a.live, { label: true });
    const res = await api("POST", `/v1/review-rules/${rule.id}/evaluations`, a.live);
    const err = await expectError(res.res, 422, "too_few_labels", "id");
    expect(err.message).toContain("at least 30 of each");
  });

  it("DELETE /v1/review-rules/{id} deletes the rule and every item it kept; later decides keep nothing", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    await decide(a.live, 0.6);
    await waitForReviews(a.live, rule.id, 1);
    const del = await api("DELETE", `/v1/review-rules/${rule.id}`, a.live);
    expect(await del.json()).toEqual({ id: rule.id, object: "review_rule", deleted: true });
    await expectError(
      (await api("DELETE", `/v1/review-rules/${rule.id}`, a.live)).res,
      404,
      "review_rule_not_found",
      "id",
    );
    const left = (await q("SELECT count(*) AS n FROM reviews WHERE account_id = $1", [a.accountId])) as any;
    expect(Number((left[0] ?? left.rows[0]).n)).toBe(0);
  });

  it("kept items are deleted with the account (foreign keys cascade)", async () => {
    const a = await account();
    const rule = await createRule(a.live);
    await decide(a.live, 0.6);
    await waitForReviews(a.live, rule.id, 1);
    const fk = (await q(
      `SELECT confdeltype FROM pg_constraint WHERE conrelid IN ('reviews'::regclass, 'review_rules'::regclass)
          AND contype = 'f' AND confrelid = 'accounts'::regclass`,
      [],
    )) as any;
    const rows = Array.isArray(fk) ? fk : fk.rows;
    expect(rows.map((r: any) => r.confdeltype)).toEqual(["c", "c"]);
  });
});
