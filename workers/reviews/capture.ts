import type { Context } from "hono";
import { decodeTime, ulid } from "ulid";
import { getMember, isJsonObject, type JsonValue } from "../../schema/json";
import { jsonText, readJsonText } from "../../schema/json-text";
import { MAX_KEPT_PER_RULE, REVIEW_RETENTION_DAYS } from "../../schema/review-limits";
import type { AppEnv } from "../context/app-env";
import { inBackground } from "../context/background";
import type { MoneyPathInput, MoneyPathOutcome } from "../decide/money-path-types";
import { questionFingerprint } from "../decide/question-fingerprint";
import { resolveModel } from "../decide/resolve-model";
import { validateDecideRequest } from "../decide/validate";
import { MAX_STORED_EVALUATION_BYTES } from "../evaluations/service";
import { errorText, logEvent } from "../observability/log";
import type { Database } from "../stores/db";
import { KEY_CACHE_TTL_MS, type KeyRecord } from "../stores/keys";
import { accountReviewRules, type ReviewRuleRow } from "../stores/review-rules";
import { insertReviews, type NewReview } from "../stores/reviews";

/** Accounts whose rules one isolate keeps (a full cache is emptied, then refilled on demand). */
const CACHED_ACCOUNTS = 10_000;
const DAY_MS = 86_400_000;
const utf8 = new TextEncoder();

/**
 * The isolate's review rules by account, keyed by the account's generation as the key lookup read it (as
 * `CalibrationLookup`): one Postgres read per isolate after each change, none otherwise; an account that never had
 * a rule is never looked up at all.
 */
const cache = new Map<string, { generation: number; rules: ReviewRuleRow[] }>();
/** When each account's rules last changed in this isolate (ms since the epoch). */
const changed = new Map<string, number>();

/** The account's rules were just created or deleted here: its decides in this isolate read them afresh. */
export function forgetRules(accountId: string): void {
  cache.delete(accountId);
  if (changed.size >= CACHED_ACCOUNTS) changed.clear();
  changed.set(accountId, Date.now());
}

/**
 * Whether a request that began at `requestStart` may carry a key record read before the account's last change
 * here: the key cache keeps a record up to KEY_CACHE_TTL_MS, read at the request's start, while the capture runs
 * after the decide, which can take far longer than that (a slow GPU). Measured from the request's start, not from
 * now, or a decide slower than the cache's TTL would miss a rule made just before it.
 */
export function mayPredateChange(accountId: string, requestStart: number): boolean {
  const at = changed.get(accountId);
  return at !== undefined && at + KEY_CACHE_TTL_MS > requestStart;
}

/** When the request began: its id's ULID time (0, i.e. before any change, for an id that is not one). */
function startOf(requestId: string): number {
  try {
    return decodeTime(requestId.slice("req_".length));
  } catch {
    return 0;
  }
}

async function rulesOf(
  db: Database,
  accountId: string,
  generation: number,
  requestStart: number,
): Promise<ReviewRuleRow[]> {
  const hit = cache.get(accountId);
  if (hit && hit.generation === generation && !mayPredateChange(accountId, requestStart)) return hit.rules;
  const rules = await accountReviewRules(db, accountId);
  if (cache.size >= CACHED_ACCOUNTS) cache.clear();
  cache.set(accountId, { generation, rules });
  return rules;
}

/** A rule's `model`: absent matches any version; an alias matches the version it names now. */
function modelMatches(rule: ReviewRuleRow, version: string): boolean {
  if (rule.model === null) return true;
  try {
    return resolveModel(rule.model, "never").version.id === version;
  } catch {
    return false;
  }
}

interface AnswerSeen {
  confidence: number;
  abstained: boolean;
}

/** Whether `rule` keeps this answer: abstained, below the confidence, or in the random sample of the rest. */
export function keeps(
  rule: Pick<ReviewRuleRow, "abstained" | "belowConfidence" | "sampleRate">,
  a: AnswerSeen,
  draw: () => number = Math.random,
): boolean {
  if (rule.abstained && a.abstained) return true;
  if (rule.belowConfidence !== null && a.confidence < rule.belowConfidence) return true;
  return rule.sampleRate > 0 && draw() < rule.sampleRate;
}

/** The items one decide gives the account's rules of its mode (none when no rule matches a question). */
async function itemsOf(
  rules: readonly ReviewRuleRow[],
  key: KeyRecord,
  requestId: string,
  input: MoneyPathInput,
  decision: string,
): Promise<NewReview[]> {
  const body = input.body;
  const out: NewReview[] = [];
  const parsed = readJsonText(decision);
  if (!isJsonObject(body) || !isJsonObject(parsed)) return out;
  const answers = getMember(parsed, "answers");
  const written = getMember(body, "questions");
  const model = String(getMember(parsed, "model"));
  if (!isJsonObject(answers) || !isJsonObject(written)) return out;
  const state = jsonText(getMember(body, "state") as JsonValue);
  const request = validateDecideRequest(body);
  for (const q of request.questions) {
    const mine = [];
    const fingerprint = await questionFingerprint(q);
    for (const r of rules) if (r.fingerprint === fingerprint && modelMatches(r, model)) mine.push(r);
    if (mine.length === 0) continue;
    const answer = getMember(answers, q.id);
    if (!isJsonObject(answer)) continue;
    const seen = {
      confidence: Number(getMember(answer, "confidence")),
      abstained: getMember(answer, "abstained") === true,
    };
    const question = jsonText(getMember(written, q.id) as JsonValue);
    const answerText = jsonText(answer);
    const bytes = [state, question, answerText].reduce((n, t) => n + utf8.encode(t).byteLength, 0);
    for (const rule of mine)
      if (keeps(rule, seen))
        out.push({
          id: `rev_${ulid()}`,
          ruleId: rule.id,
          accountId: key.accountId,
          requestId,
          model,
          questionId: q.id,
          question,
          state,
          answer: answerText,
          expiresAt: Date.now() + REVIEW_RETENTION_DAYS * DAY_MS,
          bytes,
        });
  }
  return out;
}

/**
 * Keeps the decide for review when the account's rules of the caller's mode want it (issue 51), after the
 * response: an account that never had a rule does nothing here (its generation, read with the key, is 0); one
 * that did matches and writes in the background, so a rule never changes a decide's bytes, price or latency. A
 * replay was kept as its original; the console playground's decides are not kept (docs/decisions.md).
 */
export function keepForReviewInBackground(
  c: Context<AppEnv>,
  key: KeyRecord,
  input: MoneyPathInput,
  outcome: MoneyPathOutcome,
  decision: string,
): void {
  const generation = key.account.reviewRulesGeneration ?? 0;
  const requestId = c.var.requestId;
  const requestStart = startOf(requestId);
  if (generation === 0 && !mayPredateChange(key.accountId, requestStart)) return;
  if (outcome.replayed || key.id.startsWith("playground_")) return;
  const db = c.var.db;
  const work = (async () => {
    const rules = (await rulesOf(db, key.accountId, generation, requestStart)).filter(
      (r) => r.mode === key.mode,
    );
    if (rules.length === 0) return;
    const items = await itemsOf(rules, key, requestId, input, decision);
    if (items.length > 0)
      await insertReviews(db, items, {
        perRule: MAX_KEPT_PER_RULE,
        storedBytes: MAX_STORED_EVALUATION_BYTES,
      });
  })().catch((err) => logEvent("error", "review_not_kept", { error: errorText(err) }));
  inBackground(c, work);
}
