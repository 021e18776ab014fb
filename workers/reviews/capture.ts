import type { Context } from "hono";
import { ulid } from "ulid";
import type { ValidatedDecide } from "../../schema/decide";
import { getMember, isJsonObject, type JsonValue } from "../../schema/json";
import { jsonText, readJsonText } from "../../schema/json-text";
import { MAX_KEPT_PER_RULE, REVIEW_RETENTION_DAYS } from "../../schema/review-limits";
import type { AppEnv } from "../context/app-env";
import { inBackground } from "../context/background";
import type { MoneyPathInput, MoneyPathOutcome } from "../decide/money-path-types";
import { questionFingerprint } from "../decide/question-fingerprint";
import { resolveModel } from "../decide/resolve-model";
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
const cache = new Map<string, { generation: number; rules: ReviewRuleRow[]; loadedAt: number }>();
/** Accounts whose rules changed in this isolate, until every decide that may hold the old generation is done. */
const changed = new Map<string, { at: number; until: number }>();
/**
 * How long a change is fresh: the key cache's second plus the longest a decide runs. The capture is judged at the
 * response, while the key (and its generation) was read when the decide began, possibly a slow GPU call earlier.
 */
const CHANGE_WINDOW_MS = KEY_CACHE_TTL_MS + 5 * 60_000;

/** The account's rules were just created or deleted here: its decides in this isolate read them afresh. */
export function forgetRules(accountId: string): void {
  cache.delete(accountId);
  const at = Date.now();
  changed.set(accountId, { at, until: at + CHANGE_WINDOW_MS });
}

/** When the account's rules last changed in this isolate, while that change is fresh; else null. */
function changedAt(accountId: string): number | null {
  const change = changed.get(accountId);
  if (change === undefined) return null;
  if (change.until > Date.now()) return change.at;
  changed.delete(accountId);
  return null;
}

/** The account's rules: cached by generation, or read after the isolate's own last change of them. */
async function rulesOf(db: Database, accountId: string, generation: number): Promise<ReviewRuleRow[]> {
  const hit = cache.get(accountId);
  const change = changedAt(accountId);
  if (hit && hit.generation === generation && (change === null || hit.loadedAt >= change)) return hit.rules;
  const loadedAt = Date.now();
  const rules = await accountReviewRules(db, accountId);
  if (cache.size >= CACHED_ACCOUNTS) cache.clear();
  cache.set(accountId, { generation, rules, loadedAt });
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

/** A decide as its route checked it: the body as sent and its validated request (validated once, in step 3). */
type CheckedDecide = Pick<MoneyPathInput, "body"> & { request: ValidatedDecide };

/** The items one decide gives the account's rules of its mode (none when no rule matches a question). */
async function itemsOf(
  rules: readonly ReviewRuleRow[],
  key: KeyRecord,
  requestId: string,
  input: CheckedDecide,
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
  for (const q of input.request.questions) {
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
  input: CheckedDecide,
  outcome: MoneyPathOutcome,
  decision: string,
): void {
  const generation = key.account.reviewRulesGeneration ?? 0;
  if (generation === 0 && changedAt(key.accountId) === null) return;
  if (outcome.replayed || key.id.startsWith("playground_")) return;
  const db = c.get("db");
  const requestId = c.get("requestId");
  const work = (async () => {
    const rules = (await rulesOf(db, key.accountId, generation)).filter((r) => r.mode === key.mode);
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
