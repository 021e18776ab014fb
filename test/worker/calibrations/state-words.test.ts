import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { roundUnits } from "../../../schema/answers";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { readJsonText } from "../../../schema/json-text";
import { WORDS_PROCEDURE, wordCounts } from "../../../schema/learned/features";
import { applyWordsModel, type WordsModel, wordsModelJson } from "../../../schema/learned/model";
import { createApp } from "../../../workers/app";
import type { Engine } from "../../../workers/clients/engine";
import { questionFingerprint } from "../../../workers/decide/question-fingerprint";
import { validateDecideRequest } from "../../../workers/decide/validate";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import { fixedCheckEngine } from "../../support/calibrations";
import { consoleCall } from "../../support/console";
import { sqlQuery } from "../../support/seed";
import { bearer, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const q = sqlQuery(env);
const P_YES = 0.5123;
const SPAM = { type: "check", instructions: "Is this e-mail spam?" } as const;
const model: WordsModel = {
  procedure: WORDS_PROCEDURE,
  vocab: [wordCounts("prize").buckets[0] as number],
  idf: [1.5],
  scale: 1.2,
  bias: [-0.4, 0],
  weights: [[4]],
  l2: 0.1,
};

function app(seen: ScoreRequest[] = []) {
  const engine = fixedCheckEngine(P_YES, seen) as unknown as Engine;
  return createApp((e) => ({ ...buildServices(e), engine }));
}

async function decide(secret: string, state: string, idempotencyKey?: string) {
  const headers: Record<string, string> = { ...bearer(secret), "content-type": "application/json" };
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  const res = await app().request(
    "/v1/decide",
    {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "svc-1.5.1", state, questions: { spam: SPAM } }),
    },
    env,
  );
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

/** An account whose active calibration of SPAM on svc-1.5.1 is `model` (stored as the service stores one). */
async function stateReadingAccount() {
  const a = await seed({ keys: [{ mode: "test" }] });
  const validated = validateDecideRequest(
    readJsonText(JSON.stringify({ state: "s", questions: { spam: SPAM } })),
  );
  const fingerprint = await questionFingerprint(validated.questions[0]!);
  const id = `calib_01JD${crypto
    .randomUUID()
    .replace(/-/g, "")
    .toUpperCase()
    .replace(/[ILOU]/g, "A")
    .slice(0, 22)}`;
  await q(
    `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, model, fingerprint, question, method, map, n, metrics, features, learned, mode)
     VALUES ($1, $2, 'eval_x', 'spam', 'svc-1.5.1', $3, $4, 'state_words', $5, 100, '{}', '{"kind":"state_words"}', $6, 'test')`,
    [
      id,
      a.accountId,
      fingerprint,
      JSON.stringify(SPAM),
      JSON.stringify({ temperature: 1 / 1.2, bias: [-0.4, 0] }),
      wordsModelJson(model),
    ],
  );
  await q("UPDATE accounts SET calibrations_generation = calibrations_generation + 1 WHERE id = $1", [
    a.accountId,
  ]);
  return { key: a.keys[0]!.secret, id };
}

const expectedYes = (state: string) =>
  roundUnits(applyWordsModel(model, [P_YES, 1 - P_YES], wordCounts(state)))[0]! / 10_000;

describe("a state-reading calibration answers from the request's state (issue 49)", () => {
  it("the decide reads the rendered state's words: a state with the model's words and one without answer differently, each as the model says", async () => {
    const { key, id } = await stateReadingAccount();
    const spam = await decide(key, "You won a PRIZE! Claim your prize now");
    expect(spam.status, spam.text).toBe(200);
    expect(spam.json.answers.spam.calibration).toBe(id);
    expect(spam.json.answers.spam.probability).toBe(expectedYes("You won a PRIZE! Claim your prize now"));
    const ham = await decide(key, "Minutes of Monday's meeting");
    expect(ham.json.answers.spam.probability).toBe(expectedYes("Minutes of Monday's meeting"));
    expect(spam.json.answers.spam.probability).toBeGreaterThan(0.9);
    expect(ham.json.answers.spam.probability).toBeLessThan(0.5);
  });

  it("a replay after the calibration was deleted answers the same bytes", async () => {
    const { key, id } = await stateReadingAccount();
    const state = "Free prize inside";
    const original = await decide(key, state, "words-1");
    expect(original.json.answers.spam.calibration).toBe(id);
    expect((await consoleCall("DELETE", `/v1/calibrations/${id}`, { bearer: key })).status).toBe(200);
    expect((await decide(key, state)).json.answers.spam).not.toHaveProperty("calibration");
    expect((await decide(key, state, "words-1")).text).toBe(original.text);
  });
});
