// Issue 52, the worker tier: the bucket writer (a decide's answers ride on its usage event's one statement), the
// question routes' statuses and the usage report's 422s, and one `question.drifted` per crossing.
import { env as cfEnv } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../schema/hex";
import {
  DEFAULT_DRIFT_THRESHOLD,
  Question,
  QuestionDrift,
  QuestionList,
  QuestionSeries,
  questionResourceId,
} from "../../../schema/questions";
import { lineUsageEvent } from "../../../workers/batches/runner";
import type { Env } from "../../../workers/env";
import { TEST_CLOCK_HEADER } from "../../../workers/http/test-clock";
import { sweepQuestionDrift } from "../../../workers/questions/sweep";
import type { BatchRow } from "../../../workers/stores/batch-rows";
import type { QuestionTally } from "../../../workers/stores/question-tallies";
import { recordUsageEvents } from "../../../workers/stores/usage";
import { insertDoneEvaluation } from "../../support/calibrations";
import { consoleCall, signIn } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { usageEvent } from "../../support/usage-event";
import { bearer, call, expectError, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 9, 1); // 2026-10-01, a Thursday
const CHECK = '{"type":"check","instructions":"Does the customer ask for a refund?"}';
const PICK = '{"type":"pick","instructions":"Topic?","options":{"billing":null,"shipping":"Parcels"}}';

/** A check's tally at P(yes) = p. */
const check = (p: number, over: Partial<QuestionTally> = {}): QuestionTally => ({
  definition: CHECK,
  type: "check",
  mix: p >= 0.5 ? [0, 1] : [1, 0],
  p_bins: Array.from({ length: 10 }, (_, k) => (k === Math.min(9, Math.floor(p * 10)) ? 1 : 0)),
  p,
  confidence: 0.8,
  abstained: false,
  ...over,
});
const pick = (i: number): QuestionTally => ({
  definition: PICK,
  type: "pick",
  mix: [i === 0 ? 1 : 0, i === 1 ? 1 : 0],
  p_bins: null,
  p: null,
  confidence: 0.6,
  abstained: i === 1,
});

let live = "";
let test = "";
let accountId = "";
let checkId = "";
let pickId = "";

const get = (path: string, secret = live, headers: Record<string, string> = {}) =>
  call("GET", path, { headers: { ...bearer(secret), ...headers } });
const post = (path: string, body: unknown, headers: Record<string, string> = {}, secret = live) =>
  call("POST", path, {
    headers: { ...bearer(secret), "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  const a = await seed({ keys: [{ mode: "live" }, { mode: "test" }] });
  [live, test, accountId] = [a.keys[0]!.secret, a.keys[1]!.secret, a.accountId];
  checkId = questionResourceId(await sha256Hex(CHECK));
  pickId = questionResourceId(await sha256Hex(PICK));
  const ev = (at: number, questions: QuestionTally[], over = {}) =>
    usageEvent(accountId, at, { key_id: a.keys[0]!.id, model: "svc-1.5.1", questions, ...over });
  await recordUsageEvents(env, [
    ev(T0 + 3_600_000, [check(0.15), pick(0)]),
    ev(T0 + 3_700_000, [check(0.95), pick(1)]),
    ev(T0 + DAY + 60_000, [check(0.35)], { model: "svc-1.5.0" }),
    // Adds nothing: an error, a replay.
    ev(T0 + 3_600_000, [check(0.99)], { status: 503, error_code: "no_capacity" }),
    ev(T0 + 3_600_000, [check(0.99)], { replayed: true }),
  ]);
});

describe("the bucket writer: 'only question definitions and aggregates are kept (counts and bins, never states)'", () => {
  it("per account × question × version × hour: count, answer mix, a check's ten bins and P(yes) sum, confidence sum, abstentions; errors and replays add nothing", async () => {
    type Row = Record<string, unknown>;
    const rows = (await sqlQuery(env)(
      `SELECT model, hour, answers, mix, p_bins, p_sum, confidence_sum, abstained FROM question_hourly
        WHERE account_id = $1 AND question_id = $2 ORDER BY hour`,
      [accountId, checkId],
    )) as Row[];
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ model: "svc-1.5.1", answers: "2", mix: ["1", "1"], abstained: "0" });
    expect((rows[0]!.p_bins as string[]).map(Number)).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(Number(rows[0]!.p_sum)).toBeCloseTo(1.1, 9);
    expect(Number(rows[0]!.confidence_sum)).toBeCloseTo(1.6, 9);
    expect(rows[1]).toMatchObject({ model: "svc-1.5.0", answers: "1" });
    const defs = (await sqlQuery(env)("SELECT * FROM questions WHERE account_id = $1 ORDER BY type", [
      accountId,
    ])) as Row[];
    expect(defs.map((d) => d.definition)).toEqual([CHECK, PICK]);
    expect(Object.keys(defs[0]!).sort()).not.toContain("state");
  });

  it("a repeated write of the same event (a retry) adds nothing", async () => {
    const e = usageEvent(accountId, T0 + 5 * DAY, { questions: [pick(0)] });
    await recordUsageEvents(env, [e]);
    await recordUsageEvents(env, [{ ...e, questions: [pick(0)] }]);
    const rows = await sqlQuery(env)(
      "SELECT answers FROM question_hourly WHERE account_id = $1 AND question_id = $2 AND hour = $3",
      [accountId, pickId, new Date(T0 + 5 * DAY).toISOString()],
    );
    expect(rows).toEqual([{ answers: "1" }]);
  });
});

describe("batch lines make decides too", () => {
  it("a finished line's answers ride on its usage event (client '(batch)') into the same aggregates", async () => {
    const b = { accountId, keyId: "key_B", mode: "live" } as BatchRow;
    const line = {
      line: 0,
      attempt: "req_01JD00000000000000000BATCH",
      status: 200,
      model: "svc-1.5.1",
      inputTokens: 10,
      stateTokens: 9,
      questionTokens: 1,
      chargeMicroCents: 50,
      unitPrice: 5,
      tier: "t1",
      finishedAt: T0 + 9 * DAY,
      questions: [pick(1)],
    };
    await recordUsageEvents(env, [lineUsageEvent(b, line)]);
    const rows = await sqlQuery(env)(
      "SELECT answers, mix FROM question_hourly WHERE account_id = $1 AND question_id = $2 AND hour = $3",
      [accountId, pickId, new Date(T0 + 9 * DAY).toISOString()],
    );
    expect(rows).toEqual([{ answers: "1", mix: ["0", "1"] }]);
  });
});

describe("GET /v1/questions: 'the account's questions as written'", () => {
  it("each with first and last asked, versions, calibration and review rule; a test key sees only test questions", async () => {
    const res = await get("/v1/questions", live, { [TEST_CLOCK_HEADER]: String(T0 + 2 * DAY) });
    expect(res.status).toBe(200);
    const list = QuestionList.parse(await res.json());
    const q = list.data.find((x) => x.id === checkId)!;
    expect(q).toMatchObject({
      object: "question",
      question: JSON.parse(CHECK),
      first_asked: "2026-10-01T01:00:00Z",
      last_asked: "2026-10-02T00:01:00Z",
      count_7d: 3,
      versions: ["svc-1.5.0", "svc-1.5.1"],
      calibration: null,
      review_rule: null,
    });
    expect(q.id).toMatch(/^qst_[0-9A-HJKMNP-TV-Z]{26}$/);
    const testList = QuestionList.parse(await (await get("/v1/questions", test)).json());
    expect(testList.data).toEqual([]);
    Question.parse(await (await get(`/v1/questions/${checkId}`)).json());
  });

  it("`review_rule`: the question's review rule of the same mode (issue 51), once one is made for it", async () => {
    const made = await post("/v1/review-rules", { question: JSON.parse(CHECK), when: { abstained: true } });
    expect(made.status).toBe(201);
    const rule = ((await made.json()) as { id: string }).id;
    const q = Question.parse(await (await get(`/v1/questions/${checkId}`)).json());
    expect(q.review_rule).toBe(rule);
    expect(Question.parse(await (await get(`/v1/questions/${pickId}`)).json()).review_rule).toBeNull();
    expect((await call("DELETE", `/v1/review-rules/${rule}`, { headers: bearer(live) })).status).toBe(200);
    expect(Question.parse(await (await get(`/v1/questions/${checkId}`)).json()).review_rule).toBeNull();
  });

  it("an unknown id, or another mode's, is 404 question_not_found; bad list parameters are 422", async () => {
    await expectError(
      await get("/v1/questions/qst_00000000000000000000000000"),
      404,
      "question_not_found",
      "id",
    );
    await expectError(await get(`/v1/questions/${checkId}`, test), 404, "question_not_found", "id");
    await expectError(await get("/v1/questions/nope"), 404, "question_not_found", "id");
    await expectError(await get("/v1/questions?limit=0"), 422, "invalid_value", "limit");
    await expectError(await get("/v1/questions?color=red"), 422, "unknown_field", "color");
  });
});

describe("GET /v1/questions/{id}/series: 'by day (up to 93 days) or hour (up to 7 days), as the usage report does'", () => {
  it("by day: count, mix, mean P(yes) and its ten-bin histogram, mean confidence, abstain rate, the version per bucket", async () => {
    const res = await get(`/v1/questions/${checkId}/series?start=2026-10-01&end=2026-10-04`);
    expect(res.status).toBe(200);
    const s = QuestionSeries.parse(await res.json());
    expect(s.data.map((b) => b.count)).toEqual([2, 1, 0]);
    expect(s.data[0]).toMatchObject({
      start: "2026-10-01T00:00:00Z",
      model: "svc-1.5.1",
      mix: { no: 0.5, yes: 0.5 },
      mean_p_yes: 0.55,
      mean_confidence: 0.8,
      abstain_rate: 0,
    });
    expect(s.data[0]!.histogram).toEqual([0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0.5]);
    expect(s.data[1]!.model).toBe("svc-1.5.0");
    expect(s.data[2]).toMatchObject({ count: 0, mix: null, mean_confidence: null, histogram: null });
  });

  it("a pick's mix is per option; by hour", async () => {
    const s = QuestionSeries.parse(
      await (
        await get(`/v1/questions/${pickId}/series?start=2026-10-01&end=2026-10-02&granularity=hour`)
      ).json(),
    );
    expect(s.data).toHaveLength(24);
    expect(s.data[1]).toMatchObject({ count: 2, mix: { billing: 0.5, shipping: 0.5 }, abstain_rate: 0.5 });
  });

  it("a pick's labels keep their written order: integer-like labels are not moved first", async () => {
    const def = '{"type":"pick","instructions":"Which?","options":{"b":null,"10":null,"1":null}}';
    const tally = { ...pick(0), definition: def, mix: [1, 0, 0] };
    await recordUsageEvents(env, [usageEvent(accountId, T0 + 20 * DAY, { questions: [tally] })]);
    const id = questionResourceId(await sha256Hex(def));
    const s = QuestionSeries.parse(
      await (await get(`/v1/questions/${id}/series?start=2026-10-21&end=2026-10-22`)).json(),
    );
    expect(s.data[0]!.mix).toEqual({ b: 1, "10": 0, "1": 0 });
  });

  it("bad parameters give the usage report's 422s", async () => {
    const path = `/v1/questions/${checkId}/series`;
    await expectError(await get(`${path}?end=2026-10-02`), 422, "missing_field", "start");
    await expectError(await get(`${path}?start=2026-10-01&end=2026-10-02&x=1`), 422, "unknown_field", "x");
    await expectError(await get(`${path}?start=2026-10-01&end=2027-01-03`), 422, "invalid_value", "end");
    await expectError(
      await get(`${path}?start=2026-10-01&end=2026-10-09&granularity=hour`),
      422,
      "invalid_value",
      "end",
    );
    await expectError(await get(`${path}?start=2026-13-01&end=2026-10-02`), 422, "invalid_value", "start");
    await expectError(
      await get(`${path}?start=2026-10-01&end=2026-10-02&granularity=week`),
      422,
      "invalid_value",
      "granularity",
    );
  });
});

describe("drift: 'crossing it sends the account webhook question.drifted once per crossing'", () => {
  let acc = "";
  let key = "";
  let qid = "";
  const DEF = '{"type":"check","instructions":"Is it spam?"}';
  const at = (day: number) => String(T0 + day * DAY);
  const change = (body: unknown, headers: Record<string, string> = {}) =>
    post(`/v1/questions/${qid}/drift`, body, headers, key);
  const drift = (day: number) => get(`/v1/questions/${qid}/drift`, key, { [TEST_CLOCK_HEADER]: at(day) });
  const events = async () =>
    (await sqlQuery(env)("SELECT type, payload FROM webhook_deliveries WHERE account_id = $1 ORDER BY id", [
      acc,
    ])) as Array<{
      type: string;
      payload: string;
    }>;
  const day = async (d: number, p: number, n = 24, model = "svc-1.5.1") => {
    await recordUsageEvents(
      env,
      Array.from({ length: n }, (_, i) =>
        usageEvent(acc, T0 + d * DAY + i * 3_600_000, {
          model,
          questions: [{ ...check(p), definition: DEF }],
        }),
      ),
    );
  };

  beforeAll(async () => {
    const a = await seed({ keys: [{ mode: "live" }] });
    [acc, key] = [a.accountId, a.keys[0]!.secret];
    qid = questionResourceId(await sha256Hex(DEF));
    await sqlQuery(env)("INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, 'we_T', $2)", [
      acc,
      `${(env as unknown as { STACK_CONTROL_URL: string }).STACK_CONTROL_URL}/hits/questions-${acc}`,
    ]);
    for (let d = 0; d < 7; d++) await day(d, 0.15);
  });

  it("no value while the reference week runs; then the default threshold and the statistic are stated", async () => {
    const early = QuestionDrift.parse(await (await drift(3)).json());
    expect(early).toMatchObject({
      value: null,
      drifted: false,
      reference: { complete: false, source: "first_week" },
    });
    const res = await drift(7);
    const body = QuestionDrift.parse(await res.json());
    expect(body).toMatchObject({
      statistic: "jensen_shannon_distance",
      value: 0,
      threshold: DEFAULT_DRIFT_THRESHOLD,
      drifted: false,
      model: "svc-1.5.1",
      reference: { start: "2026-10-01T00:00:00Z", end: "2026-10-08T00:00:00Z", count: 168, complete: true },
    });
  });

  it("a shift crosses once (one event, with the numbers), stays above without another, re-arms below and fires again", async () => {
    await day(7, 0.95);
    await day(8, 0.95);
    const first = QuestionDrift.parse(await (await drift(9)).json());
    expect(first.drifted).toBe(true);
    expect(first.value!).toBeGreaterThan(DEFAULT_DRIFT_THRESHOLD);
    QuestionDrift.parse(await (await drift(9)).json());
    let sent = await events();
    expect(sent).toHaveLength(1);
    const payload = JSON.parse(sent[0]!.payload);
    expect(payload).toMatchObject({
      type: "question.drifted",
      data: { object: { question: qid, value: first.value } },
    });
    expect(payload.data.object.reference.start).toBe("2026-10-01T00:00:00Z");
    expect(payload.data.object.current.end).toBe("2026-10-10T00:00:00Z");
    // Raised above the value: below, re-armed; lowered again: a second crossing, a second event.
    const raised = await change({ threshold: 0.99 }, { [TEST_CLOCK_HEADER]: at(9) });
    expect(QuestionDrift.parse(await raised.json())).toMatchObject({ threshold: 0.99, drifted: false });
    expect(await events()).toHaveLength(1);
    const lowered = await change({ threshold: 0.05 }, { [TEST_CLOCK_HEADER]: at(9) });
    expect(QuestionDrift.parse(await lowered.json()).drifted).toBe(true);
    sent = await events();
    expect(sent.map((e) => e.type)).toEqual(["question.drifted", "question.drifted"]);
  });

  it("'a change of version is not drift': another version's different mix is compared only with its own reference", async () => {
    const before = (await events()).length;
    await day(9, 0.6, 24, "svc-1.5.0");
    await day(10, 0.6, 48, "svc-1.5.0");
    const body = QuestionDrift.parse(await (await drift(14)).json());
    expect(body).toMatchObject({ model: "svc-1.5.0", value: null, reference: { complete: false } });
    expect(await events()).toHaveLength(before);
  });

  it("reset_reference starts a new reference week from now; bad bodies are 422", async () => {
    const res = await change({ reset_reference: true }, { [TEST_CLOCK_HEADER]: at(11) });
    expect(QuestionDrift.parse(await res.json())).toMatchObject({
      value: null,
      reference: { source: "reset" },
    });
    await expectError(await change({}), 422, "missing_field", "threshold");
    await expectError(await change({ threshold: 2 }), 422, "invalid_value", "threshold");
    await expectError(await change({ threshold: "x" }), 422, "invalid_type", "threshold");
    await expectError(await change({ reset_reference: false }), 422, "invalid_value", "reset_reference");
    await expectError(await change({ other: 1 }), 422, "unknown_field", "other");
    await expectError(
      await post("/v1/questions/qst_00000000000000000000000000/drift", { threshold: 0.2 }, {}, key),
      404,
      "question_not_found",
      "id",
    );
  });
});

describe("the scheduled evaluation (hourly, off the hot path)", () => {
  it("evaluates every question asked this week and queues one event per crossing, however often it runs", async () => {
    const a = await seed({ keys: [{ mode: "live" }] });
    const DEF = '{"type":"check","instructions":"Is it urgent?"}';
    await sqlQuery(env)("INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, 'we_S', $2)", [
      a.accountId,
      `${(env as unknown as { STACK_CONTROL_URL: string }).STACK_CONTROL_URL}/hits/sweep-${a.accountId}`,
    ]);
    const day = (d: number, p: number) =>
      recordUsageEvents(
        env,
        Array.from({ length: 24 }, (_, i) =>
          usageEvent(a.accountId, T0 + 40 * DAY + d * DAY + i * 3_600_000, {
            questions: [{ ...check(p), definition: DEF }],
          }),
        ),
      );
    for (let d = 0; d < 7; d++) await day(d, 0.15);
    await day(7, 0.95);
    const now = T0 + 48 * DAY;
    expect(await sweepQuestionDrift(env, now)).toBeGreaterThan(0);
    await sweepQuestionDrift(env, now + 3_600_000);
    const sent = await sqlQuery(env)("SELECT type FROM webhook_deliveries WHERE account_id = $1", [
      a.accountId,
    ]);
    expect(sent).toEqual([{ type: "question.drifted" }]);
  });
});

describe("'the calibration's evaluation when there is one' is the reference", () => {
  it("compared at once against the evaluation's answers with the calibration applied, on that version only", async () => {
    const a = await seed({ keys: [{ mode: "live" }] });
    const q = sqlQuery(env);
    const evaluation = await insertDoneEvaluation(
      q,
      a.accountId,
      Array.from({ length: 40 }, (_, i) => ({ pYes: 0.15, yes: i % 5 === 0 })),
    );
    await q(
      `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, model, fingerprint, question, method, map, n, metrics)
       VALUES ('calib_01JD0000000000000000000QST', $1, $2, 'refund', 'svc-1.5.1', $3, $4, 'temperature',
               '{"temperature":1,"bias":[0,0]}', 40, '{}')`,
      [a.accountId, evaluation, await sha256Hex(CHECK), CHECK],
    );
    const events = (p: number, model = "svc-1.5.1") =>
      Array.from({ length: 24 }, (_, i) =>
        usageEvent(a.accountId, T0 + i * 3_600_000, { model, questions: [check(p)] }),
      );
    await recordUsageEvents(env, events(0.15));
    const read = async () =>
      QuestionDrift.parse(
        await (
          await get(`/v1/questions/${checkId}/drift`, a.keys[0]!.secret, {
            [TEST_CLOCK_HEADER]: String(T0 + DAY),
          })
        ).json(),
      );
    const same = await read();
    expect(same).toMatchObject({
      model: "svc-1.5.1",
      value: 0,
      drifted: false,
      reference: {
        source: "calibration",
        calibration: "calib_01JD0000000000000000000QST",
        count: 40,
        start: null,
        complete: true,
      },
    });
    await recordUsageEvents(env, events(0.95));
    const shifted = await read();
    expect(shifted.drifted).toBe(true);
    const listed = QuestionList.parse(await (await get("/v1/questions", a.keys[0]!.secret)).json());
    expect(listed.data[0]!.calibration).toBe("calib_01JD0000000000000000000QST");
  });
});

describe("console twins under /v1/console/questions", () => {
  it("the session's account's live questions; a write needs the CSRF header", async () => {
    const s = await signIn();
    await recordUsageEvents(env, [usageEvent(s.accountId, T0, { questions: [check(0.4)] })]);
    const list = await consoleCall("GET", "/v1/console/questions", { cookie: s.cookie });
    expect(list.status).toBe(200);
    expect(QuestionList.parse(await list.json()).data.map((q) => q.id)).toEqual([checkId]);
    const series = await consoleCall(
      "GET",
      `/v1/console/questions/${checkId}/series?start=2026-10-01&end=2026-10-02`,
      {
        cookie: s.cookie,
      },
    );
    expect(QuestionSeries.parse(await series.json()).data[0]!.count).toBe(1);
    const noCsrf = await consoleCall("POST", `/v1/console/questions/${checkId}/drift`, {
      cookie: s.cookie,
      body: { threshold: 0.3 },
    });
    expect(noCsrf.status).toBe(403);
    const ok = await consoleCall("POST", `/v1/console/questions/${checkId}/drift`, {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { threshold: 0.3 },
    });
    expect(QuestionDrift.parse(await ok.json()).threshold).toBe(0.3);
  });
});
